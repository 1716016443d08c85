/**
 * One JSON log line for work outside an HTTP request's own line (the resource object, the queue consumer, runner
 * dispatch): the same shape as the request log (level, msg, time), with the request id of the inspection that
 * caused the work when there is one, and the resource's key. Errors carry their stack for operators; nothing
 * here reaches a caller.
 */
export function logEvent(level: "info" | "warn" | "error", msg: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level, msg, time: new Date().toISOString(), ...fields });
  if (level === "error") console.error(line);
  else console.log(line);
}

/** An error as a log field: its stack (or message) as text. */
export function errorField(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
