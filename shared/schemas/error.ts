import { z } from "zod";

/** Every error code the API can answer with (the contract's codes, plus this service's own). */
export const errorCodes = [
  "INVALID_URL",
  "INVALID_PAYLOAD",
  "INVALID_PARAMETER",
  "SSRF_BLOCKED",
  "RESOURCE_NOT_FOUND",
  "JOB_NOT_FOUND",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "UNSUPPORTED_MEDIA_TYPE",
  "UPSTREAM_TIMEOUT",
  "PAYLOAD_TOO_LARGE",
  "RATE_LIMITED",
  "IDEMPOTENCY_KEY_REUSED",
  "IDEMPOTENCY_KEY_IN_USE",
  "BAD_GATEWAY",
  "NOT_IMPLEMENTED",
  "INTERNAL_ERROR",
] as const;
export const ErrorCode = z.enum(errorCodes).meta({ id: "ErrorCode" });
export type ErrorCode = z.infer<typeof ErrorCode>;

/** A short human title per code: RFC 9457 `title` of problems typed by their code (the same for every occurrence). */
export const errorTitles: Record<ErrorCode, string> = {
  INVALID_URL: "The URL is not a valid http(s) URL",
  INVALID_PAYLOAD: "The request body is not valid",
  INVALID_PARAMETER: "A query parameter or header is not valid",
  SSRF_BLOCKED: "The target resolves to an address the service may not reach",
  RESOURCE_NOT_FOUND: "The remote server has no file at this URL",
  JOB_NOT_FOUND: "There is no such job",
  NOT_FOUND: "Nothing is here",
  METHOD_NOT_ALLOWED: "This method is not allowed here",
  UNSUPPORTED_MEDIA_TYPE: "The request body must be sent as JSON",
  UPSTREAM_TIMEOUT: "The remote server did not answer in time",
  PAYLOAD_TOO_LARGE: "Too large to inspect or to accept",
  RATE_LIMITED: "Too many requests from this client",
  IDEMPOTENCY_KEY_REUSED: "This Idempotency-Key was used for another request",
  IDEMPOTENCY_KEY_IN_USE: "A request with this Idempotency-Key is still running",
  BAD_GATEWAY: "The remote server refused or failed",
  NOT_IMPLEMENTED: "This is not implemented",
  INTERNAL_ERROR: "The service failed unexpectedly",
};

/**
 * Why an origin exchange failed, finer than the code: what a caller can act on (solve the
 * challenge in a browser, sign in, accept the consent, wait for Retry-After, try another region).
 */
export const errorReasons = [
  "bot-challenge",
  "login-required",
  "consent-wall",
  "geo-blocked",
  "upstream-rate-limited",
  "upstream-error",
  "dns",
  "tls",
  "timeout",
  "too-large",
] as const;
export const ErrorReason = z.enum(errorReasons).meta({
  id: "ErrorReason",
  description:
    "bot-challenge: a CDN/WAF challenge page (Cloudflare, Akamai, DataDome, PerimeterX/HUMAN, AWS WAF); login-required: 401 or a " +
    "redirect to a login page; consent-wall: a redirect to a consent page; geo-blocked: 451; upstream-rate-limited: the origin " +
    "answered 429 (its Retry-After is passed on); upstream-error: any other failed answer; dns: the host does not resolve; tls: " +
    "the TLS handshake failed; timeout: the deadline passed; too-large: the file exceeds the size limit",
});
export type ErrorReason = z.infer<typeof ErrorReason>;

/** The extra error fields: present only when they say something (the error envelope is a subset). */
const ErrorExtras = {
  reason: ErrorReason.optional(),
  upstreamStatus: z.number().int().min(100).max(599).optional()
    .meta({ description: "The status the origin answered, when it answered" }),
};

export const ErrorBody = z
  .object({
    status: z.literal("error"),
    error: z.object({
      code: ErrorCode,
      message: z.string().meta({ description: "Human-readable explanation of what to fix" }),
      ...ErrorExtras,
    }),
  })
  .meta({ description: "Error envelope used by every non-2xx answer" }).meta({ id: "ErrorBody" });
export type ErrorBody = z.infer<typeof ErrorBody>;

/**
 * The path under the service's origin that names a problem type (RFC 9457 `type`): `<base>/problems/<name>`,
 * where the name is the reason when there is one, else the code in kebab case. Each is a page (GET).
 */
export const problemTypePath = "/problems/";

export const ProblemDetails = z
  .object({
    type: z.string().meta({ format: "uri", description: `URI naming the problem: <service>${problemTypePath}<reason or kebab-case code>` }),
    title: z.string().meta({ description: "A short human title of the problem type (the reason's, else the code's)" }),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().meta({ format: "uri-reference", description: "This request, as a URI: urn:request:<X-Request-Id>" }),
    code: ErrorCode,
    ...ErrorExtras,
  })
  .meta({ id: "ProblemDetails", description: "RFC 9457 problem details, answered instead of the envelope to Accept: application/problem+json" });
export type ProblemDetails = z.infer<typeof ProblemDetails>;
