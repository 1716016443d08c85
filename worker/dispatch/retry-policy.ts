/**
 * What happens after a failed runner call, the same for the direct path and the queue. Failures the same bytes
 * would give again are never retried: the runner's refusals (corrupt or unsupported media, the pixel wall, a
 * budget spent, a declared-huge input refused up front, an SSRF block, a 404) and an origin that timed out (a
 * slow origin would hold a runner slot once per retry). A job that ran past its time is retried once: a busy
 * runner and a file too slow to process look alike once, and the engine time the first call spent is charged
 * to the inspection (RunnerError.usage), so the retry can only spend the rest of the engine-time budget.
 * Other transient errors (runner unreachable, busy, restarting) are retried with exponential backoff until the
 * attempt budget is spent.
 */
import type { DispatchConfig } from "../config/dispatch-config.ts";
import { RunnerError } from "../runner/runner-error.ts";

/** Runner and origin failures that depend only on the bytes (or on the origin's answer): retrying repeats them. */
export const deterministicRunnerCodes: ReadonlySet<string> = new Set([
  "INVALID_PAYLOAD", "SSRF_BLOCKED", "RESOURCE_NOT_FOUND", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA", "CORRUPT_MEDIA", "IMAGE_TOO_LARGE",
  "UPSTREAM_TIMEOUT",
]);

/** Calls at most for work that ran past its time (the first and one retry). */
export const processingTimeoutAttempts = 2;

export type RetryDecision = { kind: "fail"; reason: string } | { kind: "retry"; delaySeconds: number; reason: string };

export function asRunnerError(err: unknown): RunnerError {
  return err instanceof RunnerError ? err : new RunnerError("CONSUMER_ERROR", String(err), false);
}

/** attempts: calls made so far for these stages, this one included. */
export function decideRetry(err: unknown, attempts: number, config: DispatchConfig): RetryDecision {
  const error = asRunnerError(err);
  const reason = `${error.code}: ${error.message}`;
  if (error.permanent || deterministicRunnerCodes.has(error.code) || attempts >= config.RUNNER_MAX_ATTEMPTS) return { kind: "fail", reason };
  if (error.code === "PROCESSING_TIMEOUT" && attempts >= processingTimeoutAttempts) return { kind: "fail", reason };
  return { kind: "retry", delaySeconds: config.RUNNER_RETRY_BASE_SECONDS * 2 ** Math.max(0, attempts - 1), reason };
}
