/**
 * The frame step in a decoder process (decoder-process.ts) instead of an ffmpeg run, for a file the runner
 * reads itself (a RemoteSource with a known size) in a container the decoder opens (MP4/MOV, Matroska/WebM).
 * Everything else, and anything the decoder process fails at, stays with the ffmpeg CLI (frame.ts): callers get
 * `cli` and run it.
 */
import type { RemoteSource } from "../../fetch/remote-source.ts";
import { RunnerError } from "../../errors.ts";
import { currentEngineMeter } from "../engine-meter.ts";
import { currentEnginePriority } from "../engine-priority.ts";
import { engineMaxStreams, frameThreads, probeSizeBytes } from "../engine-limits.ts";
import type { Raster } from "../previews.ts";
import type { SeekMode } from "../frame.ts";
import { frameWorkerMaxPackets } from "../engine-limits.ts";
import type { DecoderPool } from "./pool.ts";
import { DecoderFailure } from "./decoder-process.ts";
import type { DecoderFormat } from "./protocol.ts";
import { sourceReader } from "./source-reader.ts";
import { mp4IndexFits } from "./mp4-index-gate.ts";
import { prefetchKeyframe, readMoov } from "../mp4-source.ts";
import { Mp4IndexError } from "../mp4-keyframes.ts";

/** Packets read to learn stream parameters (frame.ts's frameAnalyzeMicroseconds: the streams are known already). */
const analyzeMicroseconds = 500_000;

/** Top-level MP4/MOV box types a file may open with. */
const movFirstBoxes = new Set(["ftyp", "moov", "mdat", "free", "wide", "skip", "pnot"]);

export function decoderFormatOf(head: Buffer): DecoderFormat | undefined {
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return "matroska";
  if (head.length >= 8 && movFirstBoxes.has(head.toString("latin1", 4, 8))) return "mov";
  return undefined;
}

export interface WorkerFrameOptions {
  maxPx: number;
  maxPixels: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** What the CLI path should know when it takes over: why the decoder process did not answer. */
export interface CliFallback {
  cli: string;
}

/**
 * The frame at `time` per `mode` as a raster (undefined: no frame there), or `{ cli }` when the ffmpeg CLI should
 * decode it instead. The job's walls hold: the time limit and the engine budget kill the process (the job gets
 * the same error an ffmpeg run would), the job's abort kills it.
 */
export async function workerFrame(pool: DecoderPool, source: RemoteSource, time: number, mode: SeekMode, options: WorkerFrameOptions): Promise<Raster | undefined | CliFallback> {
  if (!pool.usable || !source.rangeSupported || source.size === undefined) return { cli: "not a sized, Range-read source" };
  // A lent job's engines run niced in the background: a long-lived decoder cannot be, so those go to the CLI.
  if (currentEnginePriority()?.background) return { cli: "a background job" };
  const head = Buffer.concat(await collect(source, 0, Math.min(15, source.size - 1)));
  const format = decoderFormatOf(head);
  if (!format) return { cli: "a container the decoder process does not open" };
  if (format === "mov") {
    const moov = await readMoov(source, source.size).catch((error: unknown) => {
      if (error instanceof Mp4IndexError) return undefined;
      throw error;
    });
    if (!moov || !mp4IndexFits(moov)) return { cli: "no moov, or sample tables past what one index allocation holds" };
    // The frame's keyframe is in the cache before a decoder is taken: a job waiting on a slow origin does not hold
    // one of the pool's few processes meanwhile (the pull is the one the frame step started; this waits for it).
    await prefetchKeyframe(source, time).catch(() => {});
  }
  const decoder = await pool.acquire();
  if (!decoder) return { cli: "no idle decoder process" };
  let stopDecoder: (error: Error) => void = () => {};
  let metered: () => void = () => {};
  try {
    metered = currentEngineMeter()?.start((error) => stopDecoder(error), false) ?? (() => {});
    const outcome = await decoder.decode(
      {
        size: source.size, format, time, mode, maxPx: options.maxPx, maxPixels: options.maxPixels, threads: frameThreads,
        maxPackets: frameWorkerMaxPackets,
        demuxerOptions: {
          probesize: String(probeSizeBytes), analyzeduration: String(analyzeMicroseconds), max_streams: String(engineMaxStreams),
          // Nested opens (MOV external references) get no protocol at all; the file itself comes from the callbacks.
          protocol_whitelist: "none", enable_drefs: "0",
        },
      },
      sourceReader(source),
      { timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}), onStop: (stop) => (stopDecoder = stop) },
    );
    if (outcome.status === "unsupported") return { cli: outcome.reason };
    if (outcome.status === "none") return undefined;
    return { data: outcome.data, width: outcome.width, height: outcome.height, hasAlpha: hasTransparency(outcome.data) };
  } catch (error) {
    if (error instanceof RunnerError) throw error;
    if (source.failure) throw source.failure;
    if (error instanceof DecoderFailure) {
      const cli = `the decoder process failed (${error.kind}): ${error.message}`;
      // A crash or a memory kill is the decoder's, not the file's alone: the operator should see it.
      if (error.kind !== "failed") console.warn(`media-runner: ${cli}; the job's frame goes to the ffmpeg CLI`);
      return { cli };
    }
    throw error;
  } finally {
    metered();
    pool.release(decoder);
  }
}

async function collect(source: RemoteSource, start: number, end: number): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  for await (const part of source.read(start, end)) parts.push(part);
  return parts;
}

/**
 * Whether any pixel is not opaque: the picture came with an alpha plane that is used (ProRes 4444, say). The CLI
 * path's PNG says so for any alpha-capable format; an alpha plane that is opaque throughout looks the same either way.
 */
function hasTransparency(rgba: Buffer): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i]! !== 255) return true;
  return false;
}

export function isCliFallback(value: Raster | undefined | CliFallback): value is CliFallback {
  return value !== undefined && "cli" in value;
}
