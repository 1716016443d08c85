/**
 * The runner's per-origin cap on upstream requests, with the shared OriginLimiter.
 *
 * The slot covers the wait for headers only, not the body: a job's engines may pause one body while they
 * seek elsewhere in the same file, and a slot held by a paused body could starve the seek it waits for.
 * Bodies are bounded by the request's own deadline.
 */
import { OriginLimiter } from "../../../shared/net/origin-limiter.ts";

export { OriginLimiter };

/** Concurrent header-waiting requests per origin (a browser's per-host connection count is 6; jobs are few here). */
export const RUNNER_ORIGIN_MAX_CONCURRENT = 4;

/** The runner's one limiter: every upstream request of every job goes through it. */
export const originLimiter = new OriginLimiter(RUNNER_ORIGIN_MAX_CONCURRENT);
