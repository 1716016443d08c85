/**
 * Typed client for the Media URL Inspection API, built on `hono/client`: request and response types come from
 * the Worker's own route definitions (the zod schemas in shared/schemas), so they cannot drift from the server.
 *
 *   const api = createClient("http://127.0.0.1:8787");
 *   const res = await api.api.v1.inspect.$post({ query: { profile: "fast", maxAge: "0" }, json: { url } });
 *   const batch = await api.api.v1.inspect.batch.$post({ query: { profile: "fast" }, json: { urls } },
 *     { headers: { "Idempotency-Key": crypto.randomUUID() } });
 *   // A failed URL says why: body.error.reason ("bot-challenge", "login-required", ...) and error.upstreamStatus.
 *   const doc = await (await api.oembed.$get({ query: { url, maxwidth: "640" } })).json();   // OembedDocument
 *   const sharePage = api.v.$url({ query: { url } }).href;                                 // GET /v?url=
 *
 * Every route of the Worker is here (test/unit/typed-client.test.ts compiles a call to each).
 */
import { hc } from "hono/client";
import type { AppType } from "../worker/http/app.ts";

export type { AppType };
export type { EmbedResponse, InspectResponse } from "../shared/schemas/inspect.ts";
export type { JobResource } from "../shared/schemas/job.ts";
export type { WebhookEvent } from "../shared/schemas/webhook.ts";
export type { OembedDocument } from "../shared/schemas/oembed-document.ts";
export type { ErrorBody, ErrorReason, ProblemDetails } from "../shared/schemas/error.ts";
export type { BatchBody } from "../shared/schemas/inspect.ts";
export { errorReasons, problemTypePath } from "../shared/schemas/error.ts";

export function createClient(baseUrl: string, options?: Parameters<typeof hc>[1]) {
  return hc<AppType>(baseUrl, options);
}
