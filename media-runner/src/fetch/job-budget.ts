/**
 * The runner's part of one inspection's origin budget (shared/limits.ts): what the Worker left of it arrives
 * with the request, and every origin request and byte of the job is counted against it. Counting happens in
 * the job's undici dispatcher, so every path to an origin (the source, the manifest session's playlists, keys
 * and segments, whatever the engines make the proxy read) is covered without each caller opting in.
 */
import type { Dispatcher } from "undici";
import { fullInspectionBudget, originBudgetSpentMessage, type OriginBudgetAmounts } from "../../../shared/limits.ts";
import { RunnerError } from "../errors.ts";

export class JobBudget {
  /** Origin requests made (each redirect hop is one) and response body bytes received. */
  readonly used: OriginBudgetAmounts = { requests: 0, bytes: 0 };

  constructor(readonly limit: OriginBudgetAmounts = fullInspectionBudget) {}

  /** Throws the budget's RunnerError instead of letting one more request out. */
  spendRequest(): void {
    if (this.used.requests >= this.limit.requests) throw budgetSpent("requests");
    this.used.requests += 1;
  }

  /** Counts received bytes; throws once they pass the limit (the response is aborted there). */
  spendBytes(count: number): void {
    this.used.bytes += count;
    if (this.used.bytes > this.limit.bytes) throw budgetSpent("bytes");
  }
}

/** Permanent (the Worker does not retry it): the same content would need the same work again. */
function budgetSpent(kind: keyof OriginBudgetAmounts): RunnerError {
  return new RunnerError("PAYLOAD_TOO_LARGE", originBudgetSpentMessage(kind));
}

/**
 * Passes every event on to `inner`, counting each response chunk first; a throw there makes undici abort the
 * request with that error. (compose() hands interceptors handlers in undici's controller API.)
 */
function meteredHandler(inner: Dispatcher.DispatchHandler, budget: JobBudget): Dispatcher.DispatchHandler {
  return {
    onRequestStart: (controller, context) => inner.onRequestStart?.(controller, context),
    onRequestUpgrade: (controller, status, headers, socket) => inner.onRequestUpgrade?.(controller, status, headers, socket),
    onResponseStart: (controller, status, headers, message) => inner.onResponseStart?.(controller, status, headers, message),
    onResponseData: (controller, chunk) => {
      budget.spendBytes(chunk.length);
      inner.onResponseData?.(controller, chunk);
    },
    onResponseEnd: (controller, trailers) => inner.onResponseEnd?.(controller, trailers),
    onResponseError: (controller, error) => inner.onResponseError?.(controller, error),
  };
}

/**
 * `inner` for one job: a request past the budget is refused before it is sent (request() rejects with the
 * budget's error) and a body past the byte budget is aborted mid-stream. Connections stay `inner`'s (pooled,
 * SSRF-vetted at connect time); closing the job's view is never needed.
 */
export function meteredDispatcher(inner: Dispatcher, budget: JobBudget): Dispatcher {
  return inner.compose((dispatch) => (options, handler) => {
    budget.spendRequest();
    return dispatch(options, meteredHandler(handler, budget));
  });
}
