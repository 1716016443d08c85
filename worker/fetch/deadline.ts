/** One deadline shared by every request of an outbound exchange (DNS, redirects, probe, tail read). */
export interface Deadline {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
}

export function createDeadline(timeoutMs: number): Deadline {
  return { signal: AbortSignal.timeout(timeoutMs), timeoutMs };
}
