/**
 * What happens after a failed runner call, the same for the direct path and the queue: permanent errors end
 * the stages; an origin that timed out is not asked again (a slow origin would hold a runner slot once per
 * retry, issue 15); other transient errors (runner unreachable, busy, restarting) are retried with
 * exponential backoff until the attempt budget is spent.
 */
import type { Config } from "../config/config.ts";
import { RunnerError } from "../runner/runner-client.ts";

/** Errors about the origin, not the runner: retrying soon gives the same answer. */
const originTimeouts = new Set(["UPSTREAM_TIMEOUT"]);

export type RetryDecision = { kind: "fail"; reason: string } | { kind: "retry"; delaySeconds: number; reason: string };

export function asRunnerError(err: unknown): RunnerError {
  return err instanceof RunnerError ? err : new RunnerError("CONSUMER_ERROR", String(err), false);
}

/** attempts: calls made so far for these stages, this one included. */
export function decideRetry(err: unknown, attempts: number, config: Config): RetryDecision {
  const error = asRunnerError(err);
  const reason = `${error.code}: ${error.message}`;
  if (error.permanent || originTimeouts.has(error.code) || attempts >= config.RUNNER_MAX_ATTEMPTS) return { kind: "fail", reason };
  return { kind: "retry", delaySeconds: config.RUNNER_RETRY_BASE_SECONDS * 2 ** Math.max(0, attempts - 1), reason };
}
