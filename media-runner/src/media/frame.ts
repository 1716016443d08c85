/**
 * One representative video frame from ffmpeg, already scaled to thumbnail size, as PNG bytes on stdout
 * (no temporary file). Seeking happens in the demuxer, so through the Range proxy it costs a few Range
 * requests, not a download.
 */
import { RunnerError } from "../errors.ts";
import { engineDiagnostics, ffmpegOutputBoundArgs, safeInputArgs } from "./engine-args.ts";
import { frameThreads } from "./engine-limits.ts";
import { runProcess } from "./run-process.ts";

export interface FrameOptions {
  ffmpeg: string;
  timeoutMs: number;
  maxPixels: number;
  /** The frame fits in a maxPx square (never upscaled). */
  maxPx: number;
  mode: SeekMode;
  signal?: AbortSignal;
  /** Input options replacing safeInputArgs (an HLS stream read through a manifest session: hls-input-args.ts). */
  inputArgs?: readonly string[];
  /** The runner's proxy, the only HTTP server ffmpeg may reach (run-process.ts). */
  httpProxy?: string;
  /** The stream to decode; the first video stream that is not cover art unless named (`0:v:N` for an attached picture). */
  map?: string;
}

/** Packets ffmpeg reads to learn stream parameters before seeking (microseconds of media). */
const frameAnalyzeMicroseconds = 500_000;

/** A thumbnail-sized PNG is far below this. */
const maxFrameBytes = 16 * 1024 * 1024;

/** 10% into the file skips black lead-ins and title cards, capped so long files do not seek far. */
export const representativeFraction = 0.1;
export const maxRepresentativeSeconds = 60;

export function representativeTime(durationSeconds: number | undefined): number {
  if (durationSeconds === undefined) return 0;
  return Math.min(durationSeconds * representativeFraction, maxRepresentativeSeconds);
}

/**
 * keyframe-before: the keyframe at or before the time; that keyframe and the few frames the decoder's reorder
 *   delay needs are read. Not `-skip_frame nokey`: with non-key frames skipped, an H.264 decoder with B-frames
 *   only releases the keyframe after two more keyframes, so ffmpeg read two whole GOPs more (1.1 MB instead of
 *   130 KB on a 720p file with 2 s GOPs) for the same picture.
 * keyframe-after: the first keyframe at or after the time; non-key frames are skipped, not decoded.
 * exact: the frame at the time, decoding from the previous keyframe (what `ffmpeg -ss T -i` does).
 */
export type SeekMode = "keyframe-before" | "keyframe-after" | "exact";

const seekArgs: Readonly<Record<SeekMode, readonly string[]>> = {
  // -copyts keeps the keyframe's own timestamp, so ffmpeg does not drop it as "before the start".
  "keyframe-before": ["-noaccurate_seek", "-copyts"],
  "keyframe-after": ["-skip_frame", "nokey"],
  exact: [],
};

/** Returns PNG bytes, or undefined when no frame exists at or after that time. */
export async function extractFrame(input: string, timeSeconds: number, options: FrameOptions): Promise<Buffer | undefined> {
  const max = options.maxPx;
  const filter = [
    "scale=iw*sar:ih", // square pixels, so anamorphic video is not squashed
    `scale=w='min(${max},iw)':h='min(${max},ih)':force_original_aspect_ratio=decrease:flags=area`,
  ].join(",");
  const result = await runProcess(
    options.ffmpeg,
    [
      "-hide_banner", "-nostdin", "-loglevel", "error",
      ...(options.inputArgs ?? safeInputArgs(options.maxPixels)),
      // After the shared bounds, so it replaces their decoder thread count for this one-frame decode.
      "-threads", String(frameThreads),
      ...(timeSeconds > 0 ? ["-ss", timeSeconds.toFixed(3)] : []),
      ...seekArgs[options.mode],
      // ffprobe already read the streams; the frame step needs only the decoder's setup, not 5 s of packets.
      "-analyzeduration", String(frameAnalyzeMicroseconds),
      "-i", input,
      "-map", options.map ?? "0:V:0", "-an", "-sn", "-dn",
      "-frames:v", "1", "-vf", filter, ...ffmpegOutputBoundArgs(),
      "-f", "image2pipe", "-c:v", "png", "pipe:1",
    ],
    {
      timeoutMs: options.timeoutMs, maxStdoutBytes: maxFrameBytes,
      ...(options.signal ? { signal: options.signal } : {}), ...(options.httpProxy ? { httpProxy: options.httpProxy } : {}),
    },
  );
  if (result.code !== 0) throw new RunnerError("CORRUPT_MEDIA", "no frame could be decoded", engineDiagnostics(result.stderr));
  return result.stdout.length > 0 ? result.stdout : undefined;
}
