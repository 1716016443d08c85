/**
 * The small value shapes both sides write into media metadata (the edge's header readers and the runner's
 * ffprobe mapping), written once so the two answer alike.
 */
import { formatBitrate } from "./bitrate.ts";
import { formatDuration } from "./duration.ts";

/** `value` rounded to `digits` decimal places. */
export function round(value: number, digits: number): number {
  const k = 10 ** digits;
  return Math.round(value * k) / k;
}

/** A duration as the API gives it (milliseconds precision and m:ss); undefined for none, or zero. */
export function durationOf(seconds: number | undefined): { seconds: number; formatted: string } | undefined {
  return seconds ? { seconds: round(seconds, 3), formatted: formatDuration(seconds) } : undefined;
}

/** A bitrate as the API gives it (whole bits per second and an SI text). */
export function bitrateOf(bps: number): { bps: number; formatted: string };
export function bitrateOf(bps: number | undefined): { bps: number; formatted: string } | undefined;
export function bitrateOf(bps: number | undefined): { bps: number; formatted: string } | undefined {
  return bps === undefined ? undefined : { bps: Math.round(bps), formatted: formatBitrate(bps) };
}

/** The object without its undefined fields, so an answer never carries empty keys. */
export function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
