/**
 * Waiting for events instead of sleeping for a fixed time: poll a condition until it holds or a deadline passes.
 * Runs in Node and inside workerd (it needs only timers), so every test and benchmark uses this one helper.
 */

export interface WaitOptions {
  /** Give up after this long (the error names `what` and the last value or error seen). */
  timeoutMs?: number;
  /** Pause between checks: short, since a check is cheap next to the work waited for. */
  intervalMs?: number;
  /** What is waited for, for the timeout's message. */
  what?: string;
}

const defaultTimeoutMs = 10_000;
const defaultIntervalMs = 20;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Resolves with the condition's first truthy value; a check that throws counts as "not yet" (a server still
 * starting, say). Rejects once `timeoutMs` passes without one.
 */
export async function waitFor<T>(check: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
  const { timeoutMs = defaultTimeoutMs, intervalMs = defaultIntervalMs, what = "condition" } = options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`${what} not met within ${timeoutMs} ms (last: ${seen})`);
    }
    await pause(intervalMs);
  }
}

/**
 * For a check that nothing more happens (no second delivery, no retry): the value read at the end of a window
 * that closes early as soon as the value changes. A fixed window is the only evidence of an absence; callers
 * keep it a few multiples of the interval the event would follow at, not seconds.
 */
export async function settledValue<T>(read: () => Promise<T>, windowMs: number, intervalMs = 50): Promise<T> {
  const first = JSON.stringify(await read());
  const deadline = Date.now() + windowMs;
  let value = await read();
  while (Date.now() < deadline && JSON.stringify(value) === first) {
    await pause(intervalMs);
    value = await read();
  }
  return value;
}
