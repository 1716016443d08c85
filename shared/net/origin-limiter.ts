/**
 * A per-origin concurrency cap, used by the Worker's outbound fetches and the runner's upstream requests:
 * at most `perOrigin` tasks per origin (scheme, host, port) run at once; the rest queue in order. A queued
 * task gives up when its signal fires (its deadline, or its job's), and a slot is freed as soon as the task
 * settles, so an origin that accepts connections and never answers holds at most its own few slots, never
 * the capacity other origins use. Callers decide what a task covers (the wait for headers, in both users).
 */

/** Origins tracked at once; an origin with no active or queued task is dropped, so this stays small. */
const MAX_TRACKED_ORIGINS = 10_000;

/** A queued task's place: `granted` is set by whichever task frees the slot; the waiter notices it itself. */
interface Ticket { granted: boolean }

interface OriginState {
  active: number;
  queue: Ticket[];
}

/**
 * How often a queued task looks whether its slot came. A waiter is never woken by the task that freed the slot:
 * in the Worker that task may run in another Durable Object of the same isolate, and a promise it resolved would
 * resume this waiter in that object's context (workerd: "Cannot perform I/O on behalf of a different Durable
 * Object", then "Promise will never complete"). Each waiter polls with its own timer instead.
 */
const SLOT_POLL_MS = 5;

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
    if (state.active >= this.perOrigin) await this.waitForSlot(key, state, signal);
    else state.active += 1;
    try {
      return await task();
    } finally {
      this.release(key, state);
    }
  }

  /** Active and queued tasks of one origin (tests, diagnostics). */
  load(origin: string): { active: number; queued: number } {
    const state = this.origins.get(origin);
    return { active: state?.active ?? 0, queued: state?.queue.length ?? 0 };
  }

  private release(key: string, state: OriginState): void {
    const next = state.queue.shift();
    if (next) next.granted = true;
    else if (--state.active === 0) this.origins.delete(key);
  }

  private async waitForSlot(key: string, state: OriginState, signal: AbortSignal): Promise<void> {
    const ticket: Ticket = { granted: false };
    state.queue.push(ticket);
    try {
      while (!ticket.granted) await pause(SLOT_POLL_MS, signal);
    } catch (err) {
      const i = state.queue.indexOf(ticket);
      if (i >= 0) state.queue.splice(i, 1);
      // Granted between the last look and the abort: the slot is this waiter's to pass on.
      if (ticket.granted) this.release(key, state);
      throw err;
    }
  }
}

/** Waits `ms` on this task's own timer, or rejects with the signal's reason. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
