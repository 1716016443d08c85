import { z } from "zod";

/** Every error code the API can answer with (SPEC section 7, plus the codes SPEC leaves to us). */
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
  "BAD_GATEWAY",
  "NOT_IMPLEMENTED",
  "INTERNAL_ERROR",
] as const;
export const ErrorCode = z.enum(errorCodes).meta({ id: "ErrorCode" });
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorBody = z
  .object({
    status: z.literal("error"),
    error: z.object({
      code: ErrorCode,
      message: z.string().meta({ description: "Human-readable explanation of what to fix" }),
    }),
  })
  .meta({ description: "Error envelope used by every non-2xx answer" }).meta({ id: "ErrorBody" });
export type ErrorBody = z.infer<typeof ErrorBody>;
