/**
 * POST /api/v1/inspect/batch: each URL is one ordinary inspection (edge cache, resource
 * object, the same errors), run concurrently within per-origin limits; each answers its own envelope, or error
 * envelope, in the order given. One URL failing never fails the batch.
 */
import type { BatchBody, EmbedResponse, InspectQuery, InspectResponse } from "../../shared/schemas/inspect.ts";
import { ApiError, errorBody } from "../errors/api-error.ts";
import { logEvent, errorField } from "../log/event-log.ts";
import { inspectUrl, type InspectCaller } from "./inspect-service.ts";
import { mapWithLimits } from "./batch-pool.ts";

/** Inspections of one batch running at once, and at once on one origin (host:port). */
export const batchConcurrency = 8;
export const batchPerOriginConcurrency = 2;

export type BatchResult = InspectResponse | EmbedResponse | ReturnType<typeof errorBody>;

/** `admitted[i]` false: the rate limit refused that URL; it answers RATE_LIMITED in its slot. */
export async function inspectBatch(
  env: Env,
  body: BatchBody,
  query: InspectQuery,
  admitted: readonly boolean[],
  baseUrl: string,
  caller: InspectCaller = {},
): Promise<BatchResult[]> {
  const { requestId } = caller;
  const items = body.urls.map((url, index) => ({ url, index }));
  return mapWithLimits(items, ({ url }) => originOf(url), batchPerOriginConcurrency, batchConcurrency, async ({ url, index }) => {
    if (!admitted[index]) return errorBody("RATE_LIMITED", "Too many inspections from this client: this URL of the batch was over the limit; retry it later.");
    try {
      const outcome = await inspectUrl(env, { url, ...(body.webhookUrl ? { webhookUrl: body.webhookUrl } : {}) }, query, baseUrl, caller);
      return outcome.body;
    } catch (err) {
      if (err instanceof ApiError) return errorBody(err.code, err.publicMessage, err.extras);
      logEvent("error", "batch inspection failure", { ...(requestId ? { requestId } : {}), error: errorField(err) });
      return errorBody("INTERNAL_ERROR", "Internal error. This URL was not inspected.");
    }
  });
}

/** The origin a URL names, for the per-origin limit; an unparsable URL is its own origin (it fails fast). */
function originOf(raw: string): string {
  try {
    return new URL(raw.trim()).host;
  } catch {
    return raw;
  }
}
