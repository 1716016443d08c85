import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorCode } from "../../shared/schemas/error.ts";

/** One error type for the whole Worker: status + public code/message, plus internal detail never sent out. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ErrorCode,
    readonly publicMessage: string,
    readonly detail?: string,
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
  notFound: () => new ApiError(404, "RESOURCE_NOT_FOUND", "The remote server answered 404 Not Found."),
  timeout: (ms: number) => new ApiError(408, "UPSTREAM_TIMEOUT", `The remote server did not answer within ${ms} ms.`),
  tooLarge: (limit: number) =>
    new ApiError(413, "PAYLOAD_TOO_LARGE", `The remote file exceeds the ${Math.round(limit / 1024 / 1024)} MB limit.`),
  badGateway: (msg: string, detail?: string) => new ApiError(502, "BAD_GATEWAY", msg, detail),
};

/** Rebuilds an error that crossed an RPC boundary or storage as its public fields. */
export function apiErrorFrom(error: { status: number; code: string; message: string }): ApiError {
  return new ApiError(error.status as ContentfulStatusCode, error.code as ErrorCode, error.message);
}

export function errorBody(code: ErrorCode, message: string) {
  return { status: "error" as const, error: { code, message } };
}
