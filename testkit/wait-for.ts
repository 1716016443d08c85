/**
 * Waiting for events instead of sleeping for a fixed time: poll a condition until it holds or a deadline passes.
 * Runs in Node and inside workerd (it needs only timers), so every test and benchmark uses this one helper.
 */

export interface WaitOptions {
  /** Give up after this long (the error names `what` and the last value or error seen). */
  timeoutMs?: number;
  /**
   * Pause between checks. The default suits cheap checks (a counter, a loopback fake); a check that asks the
   * service under test (a job's status) should pause longer, or the polling itself slows the work it waits for.
   */
  intervalMs?: number;
  /** What is waited for, for the timeout's message. */
  what?: string;
}

/** What a truthy check gives back: its value without the falsy members of its type. */
export type Truthy<T> = Exclude<T, false | 0 | 0n | "" | null | undefined>;

const defaultTimeoutMs = 10_000;
const defaultIntervalMs = 25;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Resolves with the condition's first truthy value. Rejects once `timeoutMs` passes without one, or at once when
 * the check throws (a process that exited will not start listening later).
 */
export async function waitFor<T>(check: () => T | Promise<T>, options: WaitOptions = {}): Promise<Truthy<T>> {
  const { timeoutMs = defaultTimeoutMs, intervalMs = defaultIntervalMs, what = "condition" } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() >= deadline) throw new Error(`${what} not met within ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await pause(intervalMs);
  }
}
