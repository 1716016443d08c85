/**
 * A decoder thread's code (decoder-thread.ts keeps a few): for each job it is sent, it reads the file, runs the
 * pure-JS decoder named and posts the result back, the pixel buffer transferred rather than copied. A RunnerError
 * keeps its code, message and detail across the thread boundary.
 */
import { readFileSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { isRunnerError } from "../errors.ts";
import { bptcDdsPixels } from "./dds-bptc.ts";
import { legacyTiffPixels } from "./tiff-legacy.ts";
import type { DecodedPixels, ThreadDecoder } from "./decoded-pixels.ts";

export interface DecoderThreadJob { id: number; decoder: ThreadDecoder; path: string; maxPixels: number }
export type DecoderThreadReply =
  | { type: "started"; id: number }
  | { type: "done"; id: number; result: DecodedPixels }
  | { type: "failed"; id: number; code?: string; message: string; detail?: string };

function decode(job: DecoderThreadJob): DecodedPixels {
  const file = readFileSync(job.path);
  return job.decoder === "dds-bptc" ? bptcDdsPixels(file, job.maxPixels) : legacyTiffPixels(file, job.maxPixels);
}

const port = parentPort;
port?.on("message", (job: DecoderThreadJob) => {
  // The parent's time limit counts from here: a job waiting behind another, or for this code to load, is not decoding.
  port.postMessage({ type: "started", id: job.id } satisfies DecoderThreadReply);
  try {
    const result = decode(job);
    const buffer = "raw" in result ? result.raw.data.buffer : result.encoded.buffer;
    port.postMessage({ type: "done", id: job.id, result } satisfies DecoderThreadReply, [buffer as ArrayBuffer]);
  } catch (error) {
    const reply: DecoderThreadReply = isRunnerError(error)
      ? { type: "failed", id: job.id, code: error.code, message: error.message, ...(error.detail ? { detail: error.detail } : {}) }
      : { type: "failed", id: job.id, message: "the image could not be decoded", detail: String(error) };
    port.postMessage(reply);
  }
});
