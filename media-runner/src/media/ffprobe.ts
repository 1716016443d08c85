/** Container and stream facts from ffprobe, read through the loopback proxy. */
import { z } from "zod";
import { RunnerError } from "../errors.ts";
import { runProcess } from "./run-process.ts";
import { engineDiagnostics, safeInputArgs } from "./engine-args.ts";

const numeric = z.union([z.string(), z.number()]).optional();

const FfprobeStream = z.looseObject({
  index: z.number(),
  codec_type: z.string().optional(),
  codec_name: z.string().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  pix_fmt: z.string().optional(),
  // "64:45" for anamorphic video, "1:1" or "0:1" (unknown) for square pixels.
  sample_aspect_ratio: z.string().optional(),
  profile: z.string().optional(),
  color_transfer: z.string().optional(),
  // For the RFC 6381 codecs string: level (H.264 level_idc, HEVC general_level_idc, AV1 seq_level_idx), the
  // sample entry code (avc1/avc3, hvc1/hev1), the colour description of HDR streams.
  level: z.number().optional(),
  codec_tag_string: z.string().optional(),
  color_primaries: z.string().optional(),
  color_range: z.string().optional(),
  channel_layout: z.string().optional(),
  bits_per_raw_sample: numeric,
  bits_per_sample: z.number().optional(),
  side_data_list: z.array(z.looseObject({ side_data_type: z.string().optional(), rotation: z.number().optional() })).optional(),
  tags: z.looseObject({ rotate: z.string().optional() }).optional(),
  color_space: z.string().optional(),
  avg_frame_rate: z.string().optional(),
  r_frame_rate: z.string().optional(),
  nb_frames: numeric,
  sample_rate: numeric,
  channels: z.number().optional(),
  bit_rate: numeric,
  duration: numeric,
  disposition: z.looseObject({ attached_pic: z.number().optional() }).optional(),
});
export type FfprobeStream = z.infer<typeof FfprobeStream>;

const FfprobeOutput = z.object({
  streams: z.array(FfprobeStream).default([]),
  format: z.looseObject({
    format_name: z.string().optional(),
    duration: numeric,
    bit_rate: numeric,
    size: numeric,
  }).optional(),
});
export type FfprobeOutput = z.infer<typeof FfprobeOutput>;

export interface ProbeOptions {
  ffprobe: string;
  timeoutMs: number;
  maxPixels: number;
  signal?: AbortSignal;
  /** The runner's proxy, the only HTTP server ffprobe may reach (run-process.ts). */
  httpProxy?: string;
}

/** ffprobe's JSON is small; more than this means something is wrong. */
const maxProbeOutputBytes = 4 * 1024 * 1024;

export async function probe(input: string, options: ProbeOptions): Promise<FfprobeOutput> {
  const result = await runProcess(
    options.ffprobe,
    ["-hide_banner", "-loglevel", "error", ...safeInputArgs(options.maxPixels),
      "-print_format", "json", "-show_format", "-show_streams", input],
    {
      timeoutMs: options.timeoutMs, maxStdoutBytes: maxProbeOutputBytes,
      ...(options.signal ? { signal: options.signal } : {}), ...(options.httpProxy ? { httpProxy: options.httpProxy } : {}),
    },
  );
  if (result.code !== 0) throw new RunnerError("CORRUPT_MEDIA", "the file could not be read as media", engineDiagnostics(result.stderr));
  let json: unknown;
  try {
    json = JSON.parse(result.stdout.toString("utf8"));
  } catch {
    throw new RunnerError("CORRUPT_MEDIA", "the file could not be read as media", "ffprobe printed invalid JSON");
  }
  const parsed = FfprobeOutput.safeParse(json);
  if (!parsed.success || parsed.data.streams.length === 0) {
    throw new RunnerError("CORRUPT_MEDIA", "the file has no readable streams", parsed.success ? "no streams" : parsed.error.message);
  }
  return parsed.data;
}

/** A positive finite number from ffprobe's strings ("N/A" and "0" give undefined). */
export function positive(value: string | number | undefined): number | undefined {
  const number = typeof value === "number" ? value : value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(number) && number > 0 ? number : undefined;
}

/** "30000/1001" -> 29.97; "0/0" -> undefined. */
export function frameRate(value: string | undefined): number | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(value ?? "");
  if (!match) return positive(value);
  const den = Number(match[2]);
  return den > 0 ? positive(Number(match[1]) / den) : undefined;
}
