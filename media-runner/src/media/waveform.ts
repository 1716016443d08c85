/**
 * Peaks and EBU R128 loudness of the whole audio, from one ffmpeg run: the ebur128 filter (peak=true) measures
 * the decoded audio and passes it on, downmixed to mono and resampled to a low rate, as 16-bit PCM on
 * stdout; the peaks are the largest |sample| per bucket. The PCM rate is chosen from the duration so the
 * output never exceeds waveformMaxPcmBytes, whatever the file's length.
 */
import { waveformMaxPeaks, waveformMinPeaks } from "../../../shared/shapes/media-data.ts";
import type { RunnerResponse } from "../../../shared/shapes/runner.ts";
import { RunnerError } from "../errors.ts";
import { engineDiagnostics, ffmpegOutputBoundArgs, safeInputArgs } from "./engine-args.ts";
import { runProcess } from "./run-process.ts";

/** Most PCM bytes read back from ffmpeg (16-bit mono): the memory bound of the peaks step. */
export const waveformMaxPcmBytes = 32 * 1024 * 1024;
/** PCM rate bounds: 8 kHz keeps the envelope of speech and music; the floor still gives several samples per bucket. */
export const waveformMaxSampleRate = 8000;
export const waveformMinSampleRate = 100;
/** Buckets per second of audio before the count is clamped to [waveformMinPeaks, waveformMaxPeaks]. */
const peaksPerSecondTarget = 10;

export interface WaveformOptions {
  ffmpeg: string;
  timeoutMs: number;
  maxPixels: number;
  signal?: AbortSignal;
  httpProxy?: string;
}

export type AudioPreview = Required<Pick<RunnerResponse, "waveform">> & Pick<RunnerResponse, "loudness">;

export function waveformSampleRate(durationSeconds: number): number {
  const fits = Math.floor(waveformMaxPcmBytes / 2 / Math.max(durationSeconds, 1));
  return Math.max(waveformMinSampleRate, Math.min(waveformMaxSampleRate, fits));
}

export async function buildWaveform(input: string, durationSeconds: number, options: WaveformOptions): Promise<AudioPreview> {
  if (!(durationSeconds > 0)) throw new RunnerError("UNSUPPORTED_MEDIA", "a waveform needs the audio's duration");
  const rate = waveformSampleRate(durationSeconds);
  const result = await runProcess(
    options.ffmpeg,
    [
      // info: the ebur128 summary is logged at that level; per-frame lines (framelog=verbose) are not.
      "-hide_banner", "-nostdin", "-nostats", "-loglevel", "info",
      ...safeInputArgs(options.maxPixels),
      "-i", input,
      "-map", "0:a:0", "-vn", "-sn", "-dn",
      // The mono downmix is the output's (-ac 1, converted after aresample): an aformat after ebur128 would be
      // negotiated back through it, and ebur128 would measure the downmix (3 LU off on stereo), not the programme.
      "-af", `ebur128=peak=true:framelog=verbose,aresample=osr=${rate}:osf=s16`,
      ...ffmpegOutputBoundArgs(),
      "-ac", "1", "-f", "s16le", "pipe:1",
    ],
    {
      timeoutMs: options.timeoutMs, maxStdoutBytes: waveformMaxPcmBytes + 64 * 1024,
      ...(options.signal ? { signal: options.signal } : {}), ...(options.httpProxy ? { httpProxy: options.httpProxy } : {}),
    },
  );
  if (result.code !== 0) throw new RunnerError("CORRUPT_MEDIA", "the audio could not be decoded", engineDiagnostics(result.stderr));
  const waveform = peaksOf(result.stdout, rate);
  const loudness = parseEbur128Summary(result.stderr);
  return { waveform, ...(loudness ? { loudness } : {}) };
}

/** Largest |sample| per bucket of 16-bit little-endian mono PCM, 0-1 with 3 decimals. */
export function peaksOf(pcm: Buffer, sampleRate: number): { peaks: number[]; perSecond: number } {
  const samples = Math.floor(pcm.length / 2);
  const seconds = samples / sampleRate;
  const count = Math.max(waveformMinPeaks, Math.min(waveformMaxPeaks, Math.round(seconds * peaksPerSecondTarget)));
  if (samples < count) throw new RunnerError("UNSUPPORTED_MEDIA", "the audio is too short for a waveform");
  const peaks: number[] = new Array(count);
  for (let b = 0; b < count; b++) {
    const end = Math.floor(((b + 1) * samples) / count);
    let max = 0;
    for (let i = Math.floor((b * samples) / count); i < end; i++) max = Math.max(max, Math.abs(pcm.readInt16LE(i * 2)));
    peaks[b] = Math.round(Math.min(1, max / 32767) * 1000) / 1000;
  }
  return { peaks, perSecond: Math.round((count / seconds) * 1e6) / 1e6 };
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
