/**
 * What one inspection may ask of the engines, judged from what the file declares before any decoding: work
 * whose declaration alone passes these is refused (or, for storyboards, made smaller) up front, instead of
 * running into a deadline and being charged for it. The engine-time budget (engine-meter.ts) bounds what a
 * declaration hides; these stop what it admits.
 */
import { RunnerError } from "../errors.ts";
import type { StoryboardPlan } from "../../../shared/media/storyboard-plan.ts";

/**
 * Audio samples (all channels) a waveform may decode: an hour of stereo at 44.1 kHz (318 M). The waveform's
 * ffmpeg (EBU R128 with true peak, 4x oversampled) ran at about 11 M samples per CPU-second here, so this is
 * about 30 engine-seconds, inside inspectionEngineSecondsBudget. Ten hours of 8-channel 48 kHz declare 13.8 G.
 */
export const waveformMaxDecodedSamples = 320_000_000;

/** Channels and rate assumed when ffprobe does not say (stereo at 48 kHz: the common case, not the cheapest). */
const assumedChannels = 2;
const assumedSampleRate = 48_000;

/** Samples a waveform of this audio decodes: duration x channels x sample rate, as declared. */
export function declaredAudioSamples(durationSeconds: number, channels: number | undefined, sampleRate: number | undefined): number {
  return durationSeconds * (channels && channels > 0 ? channels : assumedChannels) * (sampleRate && sampleRate > 0 ? sampleRate : assumedSampleRate);
}

/** Refuses a waveform whose declared decode passes waveformMaxDecodedSamples (PAYLOAD_TOO_LARGE, never retried). */
export function checkWaveformDeclaration(durationSeconds: number, channels: number | undefined, sampleRate: number | undefined): void {
  const samples = declaredAudioSamples(durationSeconds, channels, sampleRate);
  if (samples <= waveformMaxDecodedSamples) return;
  const hours = Math.round((durationSeconds / 3600) * 10) / 10;
  throw new RunnerError("PAYLOAD_TOO_LARGE",
    `the audio declares ${hours} h x ${channels ?? assumedChannels} channels x ${sampleRate ?? assumedSampleRate} Hz = ${(samples / 1e9).toFixed(2)} G samples, over waveformMaxDecodedSamples (${waveformMaxDecodedSamples / 1e6} M) per inspection`);
}

/**
 * Coded pixels a storyboard may decode, all its keyframes together: 100 tiles of 3840x2160 (830 Mpx), so a
 * full storyboard of 4K video is made whole. Decode cost follows pixels, not keyframes: 100 keyframes of
 * 7680x4320 (3.3 Gpx) took 6.8 s and 14 CPU-s; at this bound an 8K video gets 25 tiles (about 1.7 s), a
 * 1080p one its full 100.
 */
export const storyboardMaxDecodedPixels = 100 * 3840 * 2160;

/** Tiles a storyboard of frames of `framePixels` may have (at least one: a single frame is the pixel wall's). */
export function storyboardTileCap(framePixels: number): number {
  return framePixels > 0 ? Math.max(1, Math.floor(storyboardMaxDecodedPixels / framePixels)) : Number.POSITIVE_INFINITY;
}

/**
 * The plan within the pixel bound: every k-th of its tiles, k the smallest that fits (the interval grows by k,
 * so the tiles still fall on the plan's steps).
 */
export function boundStoryboardPlan(plan: StoryboardPlan, framePixels: number): StoryboardPlan {
  const cap = storyboardTileCap(framePixels);
  if (plan.tiles <= cap) return plan;
  const k = Math.ceil(plan.tiles / cap);
  const tiles = Math.ceil(plan.tiles / k);
  return { interval: plan.interval * k, tiles, columns: Math.min(plan.columns, tiles) };
}
