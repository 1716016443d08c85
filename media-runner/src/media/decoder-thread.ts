/**
 * The pure-JS decoders (dds-bptc.ts, tiff-legacy.ts) off the runner's event loop: pictures are decoded in a few
 * worker threads (decoder-thread-main.ts) with V8 heap limits, one picture at a time each. A thread whose picture
 * passes the job's process time limit, or whose job is aborted, is terminated (a new one starts for the next
 * picture). A hostile texture or strip layout then costs that thread's time only: the event loop keeps serving
 * other jobs' proxies and answers while it runs. The raw pixels come back transferred and sharp (whose work runs
 * on libuv's pool) encodes them as PNG. Threads are kept between pictures: starting one costs a module load.
 *
 * From the TypeScript sources (tsx, vitest) the thread registers tsx's loader before importing its entry; the
 * compiled image (tsc to .js) imports the .js entry directly.
 */
import { Worker } from "node:worker_threads";
import sharp from "sharp";
import { RunnerError } from "../errors.ts";
import type { RunnerErrorCode } from "../../../shared/shapes/runner.ts";
import type { DecodedPixels, ThreadDecoder } from "./decoded-pixels.ts";
import type { DecoderThreadJob, DecoderThreadReply } from "./decoder-thread-main.ts";
import { decoderThreadCount, decoderThreadLimits } from "./engine-limits.ts";

export interface ThreadDecodeOptions {
  /** Wall-clock limit of the decoding, from the thread's start of work. */
  timeoutMs: number;
  signal?: AbortSignal;
}

const fromSources = import.meta.url.endsWith(".ts");
const entry = new URL(`./decoder-thread-main.${fromSources ? "ts" : "js"}`, import.meta.url).href;

/** The thread's bootstrap: the entry itself, or tsx's ESM loader registered first when running from sources. */
function threadSource(): { code: string; eval: true } | { code: URL; eval: false } {
  if (!fromSources) return { code: new URL(entry), eval: false };
  const tsx = import.meta.resolve("tsx/esm/api");
  return { code: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`, eval: true };
}

const runnerCodes = new Set<string>(["CORRUPT_MEDIA", "UNSUPPORTED_MEDIA", "IMAGE_TOO_LARGE"]);

interface Pending {
  job: DecoderThreadJob;
  options: ThreadDecodeOptions;
  resolve: (result: DecodedPixels) => void;
  reject: (error: RunnerError) => void;
  onAbort: () => void;
}

/** One thread and the job it is decoding, if any. */
interface DecoderThread { worker: Worker; current?: Pending; timer?: NodeJS.Timeout }

const threads: DecoderThread[] = [];
const waiting: Pending[] = [];
let nextId = 1;

function startThread(): DecoderThread {
  const source = threadSource();
  const worker = new Worker(source.code, { eval: source.eval, resourceLimits: decoderThreadLimits, stdout: false, stderr: false });
  // An idle thread does not keep the runner alive at shutdown.
  worker.unref();
  const thread: DecoderThread = { worker };
  worker.on("message", (reply: DecoderThreadReply) => {
    const current = thread.current;
    if (!current || reply.id !== current.job.id) return;
    if (reply.type === "started") {
      const { timeoutMs } = current.options;
      thread.timer = setTimeout(() => retire(thread, new RunnerError("PROCESSING_TIMEOUT", "the image took too long to decode",
        `${current.job.decoder} passed ${timeoutMs} ms`)), timeoutMs);
      return;
    }
    settle(thread);
    if (reply.type === "done") current.resolve(reply.result);
    else current.reject(new RunnerError((reply.code && runnerCodes.has(reply.code) ? reply.code : "CORRUPT_MEDIA") as RunnerErrorCode, reply.message, reply.detail));
    pump();
  });
  worker.on("error", (error: Error & { code?: string }) => {
    const decoder = thread.current?.job.decoder ?? "decoder";
    retire(thread, error.code === "ERR_WORKER_OUT_OF_MEMORY"
      ? new RunnerError("IMAGE_TOO_LARGE", "the image needs more memory to decode than allowed", `${decoder}: ${error.message}`)
      : new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", `${decoder} thread: ${error.message}`));
  });
  worker.on("exit", (code) => retire(thread, new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", `decoder thread exited ${code}`)));
  threads.push(thread);
  return thread;
}

/** The thread's job is over (answered, timed out or aborted): it takes no more time from the limit. */
function settle(thread: DecoderThread): Pending | undefined {
  const current = thread.current;
  clearTimeout(thread.timer);
  thread.timer = undefined;
  thread.current = undefined;
  if (current) current.options.signal?.removeEventListener("abort", current.onAbort);
  thread.worker.unref();
  return current;
}

/** Ends a thread that overran, failed or whose job was aborted; its job fails with `error`, the queue goes on. */
function retire(thread: DecoderThread, error: RunnerError): void {
  const at = threads.indexOf(thread);
  if (at < 0) return;
  threads.splice(at, 1);
  settle(thread)?.reject(error);
  void thread.worker.terminate();
  pump();
}

/** Gives waiting jobs to idle threads, starting threads up to the limit. */
function pump(): void {
  while (waiting.length > 0) {
    const thread = threads.find((t) => !t.current) ?? (threads.length < decoderThreadCount ? startThread() : undefined);
    if (!thread) return;
    const pending = waiting.shift()!;
    thread.current = pending;
    thread.worker.ref();
    thread.worker.postMessage(pending.job);
  }
}

/** Decodes `path` with `decoder` in a decoder thread; jobs wait for a free thread in order. */
export function decodeInThread(decoder: ThreadDecoder, path: string, maxPixels: number, options: ThreadDecodeOptions): Promise<DecodedPixels> {
  if (options.signal?.aborted) return Promise.reject(new RunnerError("PROCESSING_TIMEOUT", "the job was stopped"));
  return new Promise<DecodedPixels>((resolve, reject) => {
    const pending: Pending = { job: { id: nextId++, decoder, path, maxPixels }, options, resolve, reject, onAbort: () => abort(pending) };
    options.signal?.addEventListener("abort", pending.onAbort, { once: true });
    waiting.push(pending);
    pump();
  });
}

/** An aborted job leaves the queue, or ends the thread decoding it. */
function abort(pending: Pending): void {
  const stopped = new RunnerError("PROCESSING_TIMEOUT", "the job was stopped");
  const queued = waiting.indexOf(pending);
  if (queued >= 0) {
    waiting.splice(queued, 1);
    pending.reject(stopped);
    return;
  }
  const thread = threads.find((t) => t.current === pending);
  if (thread) retire(thread, stopped);
}

/** sharp's input for the decoded picture: the encoded stream as it is, raw pixels as a quickly compressed PNG. */
export async function decodedToImage(result: DecodedPixels): Promise<{ image: Buffer; declared?: { width: number; height: number } }> {
  if ("encoded" in result) return { image: Buffer.from(result.encoded.buffer, result.encoded.byteOffset, result.encoded.byteLength) };
  const { data, width, height, channels } = result.raw;
  const image = await sharp(data, { raw: { width, height, channels } }).png({ compressionLevel: 1 }).toBuffer();
  return result.declared ? { image, declared: result.declared } : { image };
}

/** A BC6H/BC7 DDS texture as PNG bytes for sharp, decoded in a thread; `declared` is its own size when sampled. */
export async function bptcDdsToPng(path: string, maxPixels: number, options: ThreadDecodeOptions = { timeoutMs: 20_000 }):
  Promise<{ png: Buffer; declared?: { width: number; height: number } }> {
  const { image, declared } = await decodedToImage(await decodeInThread("dds-bptc", path, maxPixels, options));
  return declared ? { png: image, declared } : { png: image };
}

/** An old-style-JPEG or 12-bit TIFF as JPEG or PNG bytes for sharp, decoded in a thread. */
export async function legacyTiffToImage(path: string, maxPixels: number, options: ThreadDecodeOptions = { timeoutMs: 20_000 }):
  Promise<{ image: Buffer; declared?: { width: number; height: number } }> {
  return decodedToImage(await decodeInThread("tiff-legacy", path, maxPixels, options));
}
