import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorCode, ErrorReason } from "../../shared/schemas/error.ts";

/** What an error says beyond code and message: why the origin refused, and what it answered. */
export interface ErrorExtras {
  reason?: ErrorReason;
  upstreamStatus?: number;
  /** Seconds the origin asked us to wait (its Retry-After), passed on as ours. */
  retryAfter?: number;
}

/** One error type for the whole Worker: status + public code/message, plus internal detail never sent out. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ErrorCode,
    readonly publicMessage: string,
    readonly detail?: string,
    readonly extras: ErrorExtras = {},
  ) {
    super(`${code}: ${publicMessage}${detail ? ` (${detail})` : ""}`);
    this.name = "ApiError";
  }
}

export const errors = {
  invalidUrl: (msg: string) => new ApiError(400, "INVALID_URL", msg),
  invalidPayload: (msg: string) => new ApiError(400, "INVALID_PAYLOAD", msg),
  invalidParameter: (msg: string) => new ApiError(400, "INVALID_PARAMETER", msg),
  ssrfBlocked: (detail: string) =>
    new ApiError(403, "SSRF_BLOCKED", "The target resolves to an address this service does not fetch (private, local or metadata).", detail),
  notFound: () => new ApiError(404, "RESOURCE_NOT_FOUND", "The remote server answered 404 Not Found.", undefined, { upstreamStatus: 404 }),
  timeout: (ms: number) => new ApiError(408, "UPSTREAM_TIMEOUT", `The remote server did not answer within ${ms} ms.`, undefined, { reason: "timeout" }),
  tooLarge: (limit: number) =>
    new ApiError(413, "PAYLOAD_TOO_LARGE", `The remote file exceeds the ${Math.round(limit / 1024 / 1024)} MB limit.`, undefined, { reason: "too-large" }),
  badGateway: (msg: string, detail?: string, extras: ErrorExtras = {}) => new ApiError(502, "BAD_GATEWAY", msg, detail, extras),
  dns: (host: string, detail?: string) => new ApiError(502, "BAD_GATEWAY", `The host ${host} does not resolve.`, detail, { reason: "dns" }),
  rateLimited: (retryAfter?: string) =>
    new ApiError(429, "RATE_LIMITED", "Too many inspections from this client; retry after Retry-After seconds.", undefined,
      retryAfter !== undefined ? { retryAfter: Number(retryAfter) } : {}),
  idempotencyKeyReused: () =>
    new ApiError(422, "IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with a different request within 24 hours; use a new key for a new request."),
  idempotencyKeyInUse: (retryAfterSeconds: number) =>
    new ApiError(409, "IDEMPOTENCY_KEY_IN_USE",
      "A request with this Idempotency-Key is still being processed; retry the same request after Retry-After seconds to get its answer.",
      undefined, { retryAfter: retryAfterSeconds }),
};

/** The public fields of an error, as they cross an RPC boundary or storage. */
export interface PublicErrorFields extends ErrorExtras {
  status: number;
  code: string;
  message: string;
}

export function publicFields(error: ApiError): PublicErrorFields {
  return { status: error.status, code: error.code, message: error.publicMessage, ...error.extras };
}

/** Rebuilds an error that crossed an RPC boundary or storage as its public fields. */
export function apiErrorFrom(error: PublicErrorFields): ApiError {
  const extras: ErrorExtras = {
    ...(error.reason ? { reason: error.reason } : {}),
    ...(error.upstreamStatus !== undefined ? { upstreamStatus: error.upstreamStatus } : {}),
    ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
  };
  return new ApiError(error.status as ContentfulStatusCode, error.code as ErrorCode, error.message, undefined, extras);
}

export function errorBody(code: ErrorCode, message: string, extras: ErrorExtras = {}) {
  return {
    status: "error" as const,
    error: {
      code,
      message,
      ...(extras.reason ? { reason: extras.reason } : {}),
      ...(extras.upstreamStatus !== undefined ? { upstreamStatus: extras.upstreamStatus } : {}),
    },
  };
}
