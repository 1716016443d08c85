/**
 * Formats a duration as m:ss. Minutes are not wrapped into hours, so a 75-minute file reads
 * "75:00": the contract names one shape, and clients can parse it without a branch.
 * Rounds to the nearest second (2.96 s reads "0:03", as players show a total length).
 */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError(`duration must be a finite, non-negative number of seconds, got ${seconds}`);
  const total = Math.round(seconds);
  const minutes = Math.floor(total / 60);
  const rest = total % 60;
  return `${minutes}:${String(rest).padStart(2, "0")}`;
}
