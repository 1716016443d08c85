/**
 * A per-origin concurrency cap, used by the Worker's outbound fetches and the runner's upstream requests:
 * at most `perOrigin` tasks per origin (scheme, host, port) run at once; the rest queue in order. A queued
 * task gives up when its signal fires (its deadline, or its job's), and a slot is freed as soon as the task
 * settles, so an origin that accepts connections and never answers holds at most its own few slots, never
 * the capacity other origins use. Callers decide what a task covers (the wait for headers, in both users).
 */

/** Origins tracked at once; an origin with no active or queued task is dropped, so this stays small. */
const MAX_TRACKED_ORIGINS = 10_000;

interface OriginState {
  active: number;
  queue: (() => void)[];
}

export class OriginLimiter {
  private readonly origins = new Map<string, OriginState>();

  constructor(readonly perOrigin: number) {}

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

  /** Active and queued tasks of one origin (tests, diagnostics). */
  load(origin: string): { active: number; queued: number } {
    const state = this.origins.get(origin);
    return { active: state?.active ?? 0, queued: state?.queue.length ?? 0 };
  }
}

/**
 * `grant` runs in whichever task freed the slot: in the Worker, possibly another Durable Object of the same
 * isolate, which must not touch this waiter's signal (workerd throws "Cannot perform I/O on behalf of a different
 * Durable Object"). So it only resolves; a later abort finds the slot granted and does nothing.
 */
function waitForSlot(state: OriginState, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    let granted = false;
    const grant = () => {
      granted = true;
      resolve();
    };
    const onAbort = () => {
      if (granted) return;
      const i = state.queue.indexOf(grant);
      if (i >= 0) state.queue.splice(i, 1);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    state.queue.push(grant);
  });
}
