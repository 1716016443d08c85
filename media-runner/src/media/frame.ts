/**
 * One representative video frame from ffmpeg, already scaled to thumbnail size, as PNG bytes on stdout
 * (no temporary file). Seeking happens in the demuxer, so through the Range proxy it costs a few Range
 * requests, not a download.
 */
import { RunnerError } from "../errors.ts";
import { safeInputArgs } from "./engine-args.ts";
import { runProcess } from "./run-process.ts";

export interface FrameOptions {
  ffmpeg: string;
  timeoutMs: number;
  maxPixels: number;
  /** The frame fits in a maxPx square (never upscaled). */
  maxPx: number;
  /**
   * false: take the keyframe at or before the time (decodes one frame, reads one frame's bytes);
   * true: decode from that keyframe up to the exact time (reads and decodes the whole GOP prefix).
   */
  accurate: boolean;
  signal?: AbortSignal;
}

/** A thumbnail-sized PNG is far below this. */
const maxFrameBytes = 16 * 1024 * 1024;

/** 10% into the file skips black lead-ins and title cards, capped so long files do not seek far. */
export const representativeFraction = 0.1;
export const maxRepresentativeSeconds = 60;

export function representativeTime(durationSeconds: number | undefined): number {
  if (durationSeconds === undefined) return 0;
  return Math.min(durationSeconds * representativeFraction, maxRepresentativeSeconds);
}

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
      ...safeInputArgs(options.maxPixels),
      ...(timeSeconds > 0 ? ["-ss", timeSeconds.toFixed(3)] : []),
      ...(options.accurate ? [] : ["-noaccurate_seek"]),
      "-i", input,
      "-map", "0:V:0", "-an", "-sn", "-dn",
      "-frames:v", "1", "-vf", filter,
      "-f", "image2pipe", "-c:v", "png", "pipe:1",
    ],
    { timeoutMs: options.timeoutMs, maxStdoutBytes: maxFrameBytes, ...(options.signal ? { signal: options.signal } : {}) },
  );
  if (result.code !== 0) throw new RunnerError("CORRUPT_MEDIA", "no frame could be decoded", result.stderr.trim());
  return result.stdout.length > 0 ? result.stdout : undefined;
}
