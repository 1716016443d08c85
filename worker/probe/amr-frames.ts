import type { HeaderFacts } from "./header-facts.ts";
import { amrMaxHeadFrames } from "../config/limits.ts";

/**
 * AMR and AMR-WB storage format (RFC 4867 5): a magic line, then frames of one table-of-contents byte whose
 * frame type fixes the frame's size, each 20 ms of speech (160 samples at 8 kHz, 320 at 16 kHz). The frames in
 * the head are hopped by those sizes (a bounded count); when they reach the end of the file the count is exact,
 * otherwise their mean size over the file's size gives the frame count (exact when the mode is constant, as
 * most encoders leave it). Mono only: the multi-channel variants (#!AMR_MC1.0) are left to the runner.
 */
const formats = [
  { magic: "#!AMR\n", codec: "amr_nb", sampleRate: 8000, sizes: [13, 14, 16, 18, 20, 21, 27, 32, 6] },
  { magic: "#!AMR-WB\n", codec: "amr_wb", sampleRate: 16000, sizes: [18, 24, 33, 37, 41, 47, 51, 59, 61, 6] },
] as const;
/** Frame types 14 (speech lost) and 15 (no data) are the toc byte alone; 9-13 (NB) / 10-13 (WB) are reserved. */
const emptyTypes = new Set([14, 15]);
const frameSeconds = 0.02;

export function readAmr(head: Uint8Array, size: number): HeaderFacts | undefined {
  const format = formats.find((f) => [...f.magic].every((c, i) => head[i] === c.charCodeAt(0)));
  if (!format) return undefined;
  const start = format.magic.length;
  let o = start;
  let frames = 0;
  while (frames < amrMaxHeadFrames && o < head.length && o < size) {
    const type = (head[o]! >> 3) & 0x0f;
    const length = emptyTypes.has(type) ? 1 : (format.sizes as readonly number[])[type];
    if (length === undefined) break;
    o += length;
    frames++;
  }
  if (frames === 0) return undefined;
  const walkedAll = o >= size;
  const count = walkedAll ? frames : ((size - start) / (o - start)) * frames;
  const durationSeconds = count * frameSeconds;
  return { video: 0, audio: 1, reader: "amr-frames", audioCodec: format.codec, sampleRate: format.sampleRate, channels: 1,
    durationSeconds, durationFrom: walkedAll ? "packets-counted" : "bitrate-estimate" };
}
