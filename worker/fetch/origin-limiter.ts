/**
 * Per-origin concurrency cap for the Worker's outbound fetches, with the
 * shared OriginLimiter: at most ORIGIN_MAX_CONCURRENT requests to one origin wait for response headers at
 * once in this isolate; a queued request gives up with its deadline, and a slot is freed as soon as headers
 * arrive or the attempt fails.
 */
import { OriginLimiter } from "../../shared/net/origin-limiter.ts";

/** Concurrent header-waiting requests per origin (a browser's per-host connection count). */
export const ORIGIN_MAX_CONCURRENT = 6;

const limiter = new OriginLimiter(ORIGIN_MAX_CONCURRENT);

/** Runs `fetchOnce` when the origin of `url` has a free slot; the slot is held until it settles. */
export function withOriginSlot<T>(url: URL, signal: AbortSignal, fetchOnce: () => Promise<T>): Promise<T> {
  return limiter.run(url, signal, fetchOnce);
}

/** For tests and diagnostics: active and queued requests of one origin. */
export function originLoad(origin: string): { active: number; queued: number } {
  return limiter.load(origin);
}
