/** What every route declares alike: error responses with their examples, the request id and timing headers, the inspect answers. */
import { z } from "@hono/zod-openapi";
import { ErrorBody, ProblemDetails, problemTypePath } from "../../../shared/schemas/error.ts";
import { EmbedResponse, InspectResponse } from "../../../shared/schemas/inspect.ts";
import { errorExamples as e, inspectExamples } from "../openapi-examples.ts";
import { maxRequestBodyBytes } from "../json-body.ts";
import { maxRequestIdLength } from "../request-log.ts";

export type Example = { summary?: string; value: unknown };

export const errorResponse = (description: string, examples: Record<string, Example>) => ({
  description,
  headers: { "X-Request-Id": requestIdHeader },
  content: {
    "application/json": { schema: ErrorBody, examples },
    // RFC 9457, for callers sending Accept: application/problem+json.
    "application/problem+json": { schema: ProblemDetails },
  },
});
export const one = (summary: string, value: unknown) => ({ summary, value });

export const requestIdHeader = {
  description: `The caller's X-Request-Id when it is at most ${maxRequestIdLength} characters of [A-Za-z0-9_=-], else a generated UUID. Present on every response and in the server's log line.`,
  schema: { type: "string" as const },
};

export const methodNotAllowed = (allowed: string) =>
  errorResponse(`METHOD_NOT_ALLOWED: another method on this path (the Allow header lists ${allowed})`, {
    methodNotAllowed: one("Wrong method", e.methodNotAllowed),
  });
export const internal = errorResponse("INTERNAL_ERROR: unexpected failure (no internals are disclosed)", { internal: one("Internal error", e.internal) });

export const inspectErrors = {
  400: errorResponse("INVALID_URL, INVALID_PAYLOAD or INVALID_PARAMETER: the message says what to fix", {
    invalidUrl: one("INVALID_URL: not an http(s) URL", e.invalidUrl),
    invalidPayload: one("INVALID_PAYLOAD: a required field is missing", e.invalidPayload),
    invalidJson: one("INVALID_PAYLOAD: the body is not JSON", e.invalidJson),
    invalidParameter: one("INVALID_PARAMETER: a bad query parameter", e.invalidParameter),
  }),
  403: errorResponse("SSRF_BLOCKED: the target (or a redirect hop, or the webhookUrl) resolves to a denied address", {
    ssrfBlocked: one("SSRF_BLOCKED", e.ssrfBlocked),
  }),
  404: errorResponse("RESOURCE_NOT_FOUND: the remote server answered 404", { resourceNotFound: one("RESOURCE_NOT_FOUND", e.resourceNotFound) }),
  405: methodNotAllowed("GET, HEAD, POST"),
  408: errorResponse("UPSTREAM_TIMEOUT: the remote exchange passed the 10 s deadline", { timeout: one("UPSTREAM_TIMEOUT", e.timeout) }),
  413: errorResponse(
    `PAYLOAD_TOO_LARGE: the remote file exceeds 50 MB (declared or streamed), or this request's body exceeds ${maxRequestBodyBytes} bytes (checked before parsing)`,
    { remoteTooLarge: one("The remote file is too large", e.remoteTooLarge), bodyTooLarge: one("The request body is too large", e.bodyTooLarge) },
  ),
  415: errorResponse("UNSUPPORTED_MEDIA_TYPE: the body was sent without Content-Type: application/json", {
    unsupportedMediaType: one("UNSUPPORTED_MEDIA_TYPE", e.unsupportedMediaType),
  }),
  429: {
    ...errorResponse("RATE_LIMITED: this client passed its per-minute inspection limit (INSPECT_RATE_LIMIT); retry after Retry-After seconds", {
      rateLimited: one("RATE_LIMITED", e.rateLimited),
    }),
    headers: {
      "X-Request-Id": requestIdHeader,
      "Retry-After": { description: "Seconds until the client's window resets", schema: { type: "integer" as const } },
      RateLimit: { description: "IETF draft RateLimit fields: remaining requests and reset time", schema: { type: "string" as const } },
      "RateLimit-Policy": { description: "The limit and its window, e.g. `60;w=60`", schema: { type: "string" as const } },
    },
  },
  409: {
    ...errorResponse(
      "IDEMPOTENCY_KEY_IN_USE: a request with this Idempotency-Key is still being processed (as Stripe answers concurrent use of a key). " +
      "Nothing was started for this request; retry it after Retry-After seconds to get the first request's answer.",
      { idempotencyKeyInUse: one("IDEMPOTENCY_KEY_IN_USE", e.idempotencyKeyInUse) },
    ),
    headers: {
      "X-Request-Id": requestIdHeader,
      "Retry-After": { description: "Seconds to wait before retrying the same request", schema: { type: "integer" as const } },
    },
  },
  422: errorResponse("IDEMPOTENCY_KEY_REUSED: this Idempotency-Key was used within 24 h with a different request", {
    idempotencyKeyReused: one("IDEMPOTENCY_KEY_REUSED", { status: "error", error: { code: "IDEMPOTENCY_KEY_REUSED", message: "This Idempotency-Key was used with a different request within 24 hours; use a new key for a new request." } }),
  }),
  500: internal,
  502: {
    ...errorResponse(
      "BAD_GATEWAY: the remote server refused or failed; error.reason says why (bot-challenge, login-required, consent-wall, geo-blocked, " +
      "upstream-rate-limited, upstream-error, dns, tls) and error.upstreamStatus what it answered. RFC 9457 problem types: " +
      `<service>${problemTypePath}<reason>, each a page.`,
      {
        badGateway: one("BAD_GATEWAY", e.badGateway),
        botChallenge: one("A bot-protection challenge", { status: "error", error: { code: "BAD_GATEWAY", message: "The remote server answered 403 with a bot-protection challenge page; it serves this URL only to browsers that pass the challenge.", reason: "bot-challenge", upstreamStatus: 403 } }),
        rateLimitedUpstream: one("The origin rate-limited us", { status: "error", error: { code: "BAD_GATEWAY", message: "The remote server answered 429 Too Many Requests; it asks to retry after 120 s.", reason: "upstream-rate-limited", upstreamStatus: 429 } }),
      },
    ),
    headers: {
      "X-Request-Id": requestIdHeader,
      "Retry-After": { description: "reason upstream-rate-limited: the origin's own Retry-After, in seconds (capped at one day)", schema: { type: "integer" as const } },
    },
  },
} as const;

export const timingHeaders = {
  "X-Request-Id": requestIdHeader,
  ETag: { description: "Strong validator of this answer (complete answers; GET with If-None-Match gets 304)", schema: { type: "string" as const } },
  "Cache-Control": { description: "Complete: public, max-age=<the record's whole life>, stale-while-revalidate=60, with Age = how much of it is used (RFC 9111 4.2.3: a cache keeps it max-age minus Age); partial and 202: no-store", schema: { type: "string" as const } },
  "Cache-Status": {
    description: "RFC 9211, naming media-inspect: hit; ttl=N | fwd=miss[; stored|collapsed] | fwd=stale; fwd-status=<origin status> (maxAge revalidation: 304 kept the record)",
    schema: { type: "string" as const },
  },
  Age: { description: "Seconds since the origin last gave or confirmed the record (the part of max-age used)", schema: { type: "integer" as const } },
  "Server-Timing": {
    description: "This request's total time and the resource's stage timings (ms), e.g. `total;dur=12, stage-mediaFormat;dur=14`",
    schema: { type: "string" as const },
  },
};

/** The inspect answers both forms share. */
export const inspectAnswers = {
  200: {
    description: "Inspection result (complete, cached, or fast). profile=embed answers the embed shape.",
    headers: timingHeaders,
    content: { "application/json": { schema: z.union([InspectResponse, EmbedResponse]), examples: inspectExamples[200] } },
  },
  202: {
    description:
      "standard profile on heavy media: the initial inspection is done; enrichments continue as `job`. Also `full` when " +
      "the stages did not finish within FULL_WAIT_TIMEOUT_MS (default 25 s): the same answer, so the caller can poll the job.",
    headers: {
      ...timingHeaders,
      Location: { description: "Absolute URL of the job to poll (GET)", schema: { type: "string" as const, format: "uri" } },
      "Retry-After": { description: "Seconds to wait before polling the job", schema: { type: "integer" as const } },
    },
    content: { "application/json": { schema: InspectResponse, examples: inspectExamples[202] } },
  },
};
/** A GET has no body: no 413 for its size, no 415 for its type, no Idempotency-Key (409, 422). */
const { 409: _keyInUse, 413: _bodyTooLarge, 415: _bodyType, 422: _idempotency, ...inspectByQueryErrors } = inspectErrors;
export { inspectByQueryErrors };

/**
 * Request headers are described in the operation's text, not declared as `request.headers`: declared headers
 * would become required arguments of every typed client call (hono/client).
 */
export const idempotencyText =
  " Header Idempotency-Key (1 to 255 printable ASCII characters, per client): the same key with the same request within 24 h " +
  "answers the first answer again (Idempotent-Replayed: true) and registers no second job or webhook; with a different request, 422 IDEMPOTENCY_KEY_REUSED; " +
  "while the first request with the key is still being processed, 409 IDEMPOTENCY_KEY_IN_USE with Retry-After (nothing is started; retry to get the first answer). " +
  "Only finished answers are kept: a 408, 429 or 5xx releases the key, so a retry after Retry-After is a new request. A caller the " +
  "service cannot identify (CLIENT_IP_SOURCE; SECURITY.md) has no key slots: its Idempotency-Key is ignored." +
  " Header Accept: application/problem+json: errors as RFC 9457 problem details.";
