/**
 * Per-origin concurrency cap for the Worker's outbound fetches (issue 14 item 5, issue 15 item 4): at most
 * ORIGIN_MAX_CONCURRENT requests to one origin (scheme, host, port) wait for response headers at once in this
 * isolate; the rest queue in order. A queued request gives up when its deadline fires, and a slot is freed as
 * soon as headers arrive or the attempt fails, so a slow or hanging origin holds at most its own slots and
 * never the capacity other origins use.
 */

/** Concurrent header-waiting requests per origin (a browser's per-host connection count). */
export const ORIGIN_MAX_CONCURRENT = 6;
/** Origins tracked at once; entries with no active or queued request are dropped, so this stays small. */
const MAX_TRACKED_ORIGINS = 10_000;

interface OriginState {
  active: number;
  queue: (() => void)[];
}

const origins = new Map<string, OriginState>();

/** Runs `fetchOnce` when the origin of `url` has a free slot; the slot is held until it settles. */
export async function withOriginSlot<T>(url: URL, signal: AbortSignal, fetchOnce: () => Promise<T>): Promise<T> {
  const key = url.origin;
  let state = origins.get(key);
  if (!state) {
    if (origins.size >= MAX_TRACKED_ORIGINS) return fetchOnce(); // never a memory sink; the cap is best-effort
    state = { active: 0, queue: [] };
    origins.set(key, state);
  }
  // A freed slot is handed straight to the next waiter (never decremented in between), so a newcomer cannot
  // slip in ahead of the queue and go over the cap.
  if (state.active >= ORIGIN_MAX_CONCURRENT) await waitForSlot(state, signal);
  else state.active += 1;
  try {
    return await fetchOnce();
  } finally {
    const next = state.queue.shift();
    if (next) next();
    else if (--state.active === 0) origins.delete(key);
  }
}

function waitForSlot(state: OriginState, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
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

/** For tests and diagnostics: active and queued requests of one origin. */
export function originLoad(origin: string): { active: number; queued: number } {
  const state = origins.get(origin);
  return { active: state?.active ?? 0, queued: state?.queue.length ?? 0 };
}
