/**
 * Peaks and EBU R128 loudness of the whole audio, from one ffmpeg run at the file's own sample rate: the ebur128
 * filter (peak=true) measures the decoded programme and passes it on unchanged; asetnsamples cuts it into
 * buckets of samples_per_pixel samples, astats measures each bucket's true minimum and maximum per channel, and
 * ametadata prints them on stdout as text: the output grows with the bucket count (at most waveformMaxPeaks),
 * never with the duration, and nothing is downmixed or resampled, so no peak is lost.
 *
 * The result is BBC audiowaveform's JSON (version 2: signed 16-bit min/max pairs per channel), which peaks.js
 * and wavesurfer.js read, and the older mono form (`peaks`, 0-1) made from the same buckets: the largest
 * |sample| of any channel.
 */
import { waveformMaxPeaks, waveformMinPeaks, type AudioWaveform } from "../../../shared/shapes/media-data.ts";
import type { RunnerResponse } from "../../../shared/shapes/runner.ts";
import { RunnerError } from "../errors.ts";
import { engineDiagnostics, ffmpegOutputBoundArgs, safeInputArgs } from "./engine-args.ts";
import { runProcess } from "./run-process.ts";

/** Buckets per second of audio before the count is clamped to [waveformMinPeaks, waveformMaxPeaks]. */
const peaksPerSecondTarget = 10;
/** Channels measured one by one; a file with more has no waveform (the stage fails and says why). */
export const waveformMaxChannels = 8;
/** Text ametadata prints per bucket and channel is under 100 bytes: the stdout bound of the step. */
const maxMetadataBytes = waveformMaxPeaks * 2 * (waveformMaxChannels * 100 + 64);
/** Full scale of the JSON's 16-bit values. */
const fullScale16 = 32767;

export interface WaveformOptions {
  ffmpeg: string;
  timeoutMs: number;
  maxPixels: number;
  signal?: AbortSignal;
  httpProxy?: string;
}

export type AudioPreview = Required<Pick<RunnerResponse, "waveform" | "audiowaveform">> & Pick<RunnerResponse, "loudness">;

export interface AudioShape {
  durationSeconds: number;
  /** Hz, as ffprobe reports the decoded stream. */
  sampleRate: number;
  channels: number;
}

/** Samples per bucket so that the whole audio makes about peaksPerSecondTarget buckets a second, within the bounds. */
export function samplesPerPixel(shape: AudioShape): number {
  const samples = shape.durationSeconds * shape.sampleRate;
  const buckets = Math.max(waveformMinPeaks, Math.min(waveformMaxPeaks, Math.round(shape.durationSeconds * peaksPerSecondTarget)));
  return Math.max(1, Math.ceil(samples / buckets));
}

export async function buildWaveform(input: string, shape: AudioShape, options: WaveformOptions): Promise<AudioPreview> {
  if (!(shape.durationSeconds > 0)) throw new RunnerError("UNSUPPORTED_MEDIA", "a waveform needs the audio's duration");
  if (!(shape.sampleRate > 0) || !(shape.channels > 0)) throw new RunnerError("UNSUPPORTED_MEDIA", "a waveform needs the audio's sample rate and channels");
  if (shape.channels > waveformMaxChannels) throw new RunnerError("UNSUPPORTED_MEDIA", `a waveform is drawn for at most ${waveformMaxChannels} channels`);
  const spp = samplesPerPixel(shape);
  const result = await runProcess(
    options.ffmpeg,
    [
      // info: the ebur128 summary is logged at that level; per-frame lines (framelog=verbose) are not.
      "-hide_banner", "-nostdin", "-nostats", "-loglevel", "info",
      ...safeInputArgs(options.maxPixels),
      "-i", input,
      "-map", "0:a:0", "-vn", "-sn", "-dn",
      "-af", [
        "ebur128=peak=true:framelog=verbose",
        // ebur128 hands on doubles: astats reports them as they are, full scale 1.
        "aformat=sample_fmts=dbl",
        `asetnsamples=n=${spp}:p=0`,
        "astats=metadata=1:reset=1:measure_perchannel=Min_level+Max_level:measure_overall=none",
        "ametadata=mode=print:file=-",
      ].join(","),
      ...ffmpegOutputBoundArgs(),
      "-f", "null", "-",
    ],
    {
      timeoutMs: options.timeoutMs, maxStdoutBytes: maxMetadataBytes,
      ...(options.signal ? { signal: options.signal } : {}), ...(options.httpProxy ? { httpProxy: options.httpProxy } : {}),
    },
  );
  if (result.code !== 0) throw new RunnerError("CORRUPT_MEDIA", "the audio could not be decoded", engineDiagnostics(result.stderr));
  const buckets = parseBucketLevels(result.stdout.toString("latin1"), shape.channels);
  const { audiowaveform, waveform } = waveformsOf(buckets, shape, spp);
  const loudness = parseEbur128Summary(result.stderr);
  return { waveform, audiowaveform, ...(loudness ? { loudness } : {}) };
}

/** One bucket's [min, max] per channel, full scale 1. */
export type BucketLevels = Array<Array<[number, number]>>;

/**
 * ametadata's print: a `frame:N ...` line starts each bucket, then `lavfi.astats.<channel>.Min_level=<v>` and
 * `...Max_level=<v>` lines. One pass over the lines; anything else is ignored.
 */
export function parseBucketLevels(text: string, channels: number): BucketLevels {
  const buckets: BucketLevels = [];
  let current: Array<[number, number]> | undefined;
  for (const line of text.split("\n")) {
    if (line.startsWith("frame:")) {
      current = Array.from({ length: channels }, () => [0, 0] as [number, number]);
      buckets.push(current);
      continue;
    }
    if (!current || !line.startsWith("lavfi.astats.")) continue;
    const dot = line.indexOf(".", "lavfi.astats.".length);
    const equals = line.indexOf("=", dot);
    if (dot < 0 || equals < 0) continue;
    const channel = Number(line.slice("lavfi.astats.".length, dot)) - 1;
    const key = line.slice(dot + 1, equals);
    const value = Number.parseFloat(line.slice(equals + 1));
    if (!(channel >= 0 && channel < channels) || !Number.isFinite(value)) continue;
    if (key === "Min_level") current[channel]![0] = value;
    else if (key === "Max_level") current[channel]![1] = value;
  }
  return buckets;
}

/**
 * The two forms from the buckets. More buckets than waveformMaxPeaks (the duration was under-reported) are
 * merged in pairs, doubling samples_per_pixel, so the answer keeps its bound.
 */
export function waveformsOf(levels: BucketLevels, shape: AudioShape, samplesPerPixelIn: number): Pick<AudioPreview, "waveform" | "audiowaveform"> {
  let buckets = levels;
  let spp = samplesPerPixelIn;
  while (buckets.length > waveformMaxPeaks) {
    const merged: BucketLevels = [];
    for (let i = 0; i < buckets.length; i += 2) {
      const a = buckets[i]!;
      const b = buckets[i + 1];
      merged.push(a.map(([min, max], c) => [Math.min(min, b?.[c]![0] ?? min), Math.max(max, b?.[c]![1] ?? max)]));
    }
    buckets = merged;
    spp *= 2;
  }
  if (buckets.length < waveformMinPeaks) throw new RunnerError("UNSUPPORTED_MEDIA", "the audio is too short for a waveform");
  // Rounded outwards: a peak is never drawn lower than it is.
  const toInt16 = (v: number, round: (x: number) => number) => Math.max(-32768, Math.min(32767, round(v * fullScale16)));
  const data: number[] = [];
  const peaks: number[] = [];
  for (const bucket of buckets) {
    let peak = 0;
    for (const [min, max] of bucket) {
      data.push(toInt16(min, Math.floor), toInt16(max, Math.ceil));
      peak = Math.max(peak, Math.abs(min), Math.abs(max));
    }
    peaks.push(Math.round(Math.min(1, peak) * 1000) / 1000);
  }
  const audiowaveform: AudioWaveform = {
    version: 2, channels: shape.channels, sample_rate: shape.sampleRate, samples_per_pixel: spp, bits: 16, length: buckets.length, data,
  };
  return { audiowaveform, waveform: { peaks, perSecond: Math.round((shape.sampleRate / spp) * 1e6) / 1e6 } };
}

/** A number after `label` on one line of the summary (a label per line: no scan over the whole text). */
function summaryValue(lines: readonly string[], from: number, label: string): number | undefined {
  for (let i = from; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line.startsWith(label)) continue;
    const value = Number.parseFloat(line.slice(label.length).trim());
    return Number.isFinite(value) ? value : undefined;
  }
  return undefined;
}

/**
 * The ebur128 filter's closing summary (I, LRA, true Peak). Undefined when it is missing or not finite
 * (digital silence has a true peak of -inf).
 */
export function parseEbur128Summary(stderr: string): RunnerResponse["loudness"] {
  const lines = stderr.split("\n");
  const start = lines.findLastIndex((line) => line.includes("Summary:"));
  if (start < 0) return undefined;
  const integratedLufs = summaryValue(lines, start, "I:");
  const rangeLu = summaryValue(lines, start, "LRA:");
  const truePeakDbtp = summaryValue(lines, start, "Peak:");
  if (integratedLufs === undefined || rangeLu === undefined || truePeakDbtp === undefined) return undefined;
  return { integratedLufs, rangeLu, truePeakDbtp };
}
