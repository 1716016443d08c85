/**
 * Per-origin cap on the runner's upstream requests (issue 14 item 5): at most RUNNER_ORIGIN_MAX_CONCURRENT
 * requests to one origin (scheme, host, port) wait for response headers at once; the rest queue in order.
 * A queued request gives up when its signal fires (the request's deadline or the job's), and a slot is freed
 * as soon as headers arrive or the attempt fails. So an origin that accepts connections and never answers
 * holds at most its own few sockets, never the connections other origins' jobs need.
 *
 * The slot covers the wait for headers only, not the body: a job's engines may pause one body while they
 * seek elsewhere in the same file, and a slot held by a paused body could starve the seek it waits for.
 * Bodies are bounded by the request's own deadline.
 */

/** Concurrent header-waiting requests per origin (a browser's per-host connection count is 6; jobs are few here). */
export const RUNNER_ORIGIN_MAX_CONCURRENT = 4;
/** Origins tracked at once; an origin with no active or queued request is dropped, so this stays small. */
const MAX_TRACKED_ORIGINS = 10_000;

interface OriginState {
  active: number;
  queue: (() => void)[];
}

export class OriginLimiter {
  private readonly origins = new Map<string, OriginState>();

  constructor(readonly perOrigin = RUNNER_ORIGIN_MAX_CONCURRENT) {}

  /** Runs `task` once the origin of `url` has a free slot; the slot is held until the task settles. */
  async run<T>(url: URL, signal: AbortSignal, task: () => Promise<T>): Promise<T> {
    signal.throwIfAborted();
    const key = url.origin;
    let state = this.origins.get(key);
    if (!state) {
      if (this.origins.size >= MAX_TRACKED_ORIGINS) return task(); // never a memory sink; the cap is best-effort
      state = { active: 0, queue: [] };
      this.origins.set(key, state);
    }
    // A freed slot is handed straight to the next waiter (never decremented in between), so a newcomer
    // cannot slip in ahead of the queue and go over the cap.
    if (state.active >= this.perOrigin) await waitForSlot(state, signal);
    else state.active += 1;
    try {
      return await task();
    } finally {
      const next = state.queue.shift();
      if (next) next();
      else if (--state.active === 0) this.origins.delete(key);
    }
  }

  /** Active and queued requests of one origin (tests, diagnostics). */
  load(origin: string): { active: number; queued: number } {
    const state = this.origins.get(origin);
    return { active: state?.active ?? 0, queued: state?.queue.length ?? 0 };
  }
}

function waitForSlot(state: OriginState, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const grant = () => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    };
    const onAbort = () => {
      const i = state.queue.indexOf(grant);
      if (i >= 0) state.queue.splice(i, 1);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    state.queue.push(grant);
  });
}

/** The runner's one limiter: every upstream request of every job goes through it. */
export const originLimiter = new OriginLimiter();
