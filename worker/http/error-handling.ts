import type { Context, Hono, MiddlewareHandler } from "hono";
import { methodNotAllowed } from "hono/method-not-allowed";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorCode } from "../../shared/schemas/error.ts";
import { ApiError, errorBody, type ErrorExtras } from "../errors/api-error.ts";
import type { AppEnv } from "./app-env.ts";
import { errorField } from "../log/event-log.ts";
import { annotate, logLine } from "./request-log.ts";

/**
 * 405 with `Allow` for a path that is served under other methods, built by Hono from the routes as declared
 * (so the table cannot drift from what is served): a GET route also answers HEAD, and `Allow` says so.
 */
export function wrongMethod(app: Hono<AppEnv, any, any>): MiddlewareHandler<AppEnv> {
  return methodNotAllowed<AppEnv>({
    app,
    onMethodNotAllowed: (c, methods) =>
      errorResponse(c, 405, "METHOD_NOT_ALLOWED", `${c.req.method} is not allowed here; use ${methods.join(", ")}.`, { allow: methods.join(", ") }),
  });
}

export function notFound(c: Context<AppEnv>): Response {
  const path = new URL(c.req.url).pathname;
  return errorResponse(c, 404, "NOT_FOUND", `No route for ${c.req.method} ${path}. See /api-docs.`);
}

/**
 * The error envelope, with the code (and reason) noted in the request log line. An origin's Retry-After
 * travels on as ours: the caller should wait as long as the origin asked us to.
 */
export function errorResponse(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  code: ErrorCode,
  message: string,
  headers?: Record<string, string>,
  extras: ErrorExtras = {},
): Response {
  annotate(c, { errorCode: code, ...(extras.reason ? { errorReason: extras.reason } : {}) });
  const all = { ...headers, ...(extras.retryAfter !== undefined ? { "retry-after": String(extras.retryAfter) } : {}) };
  return c.json(errorBody(code, message, extras), status, all);
}

/** Hono's own client-error exceptions (validator, media-type gate), as envelope codes with a message saying what to send. */
function clientErrorFrom(err: HTTPException, c: Context<AppEnv>): { status: ContentfulStatusCode; code: ErrorCode; message: string } {
  if (err.status === 415) {
    const sent = c.req.header("content-type");
    return {
      status: 415,
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: `Send the body as JSON with the header Content-Type: application/json (${sent ? `got ${sent.slice(0, 100)}` : "no Content-Type was sent"}).`,
    };
  }
  if (err.status === 413) return { status: 413, code: "PAYLOAD_TOO_LARGE", message: "The request body is too large." };
  // The JSON validator throws 400 for a body that does not parse.
  return {
    status: 400,
    code: "INVALID_PAYLOAD",
    message: "The request body must be valid JSON sent with Content-Type: application/json: { \"url\": \"https://...\" }.",
  };
}

/**
 * The single error handler: known errors keep their status and message; client errors from Hono become 4xx
 * envelopes (never a 500, never a stack in the log); anything else is a bare 500, logged with its stack.
 */
export function onError(err: Error, c: Context<AppEnv>): Response {
  if (err instanceof ApiError) return errorResponse(c, err.status, err.code, err.publicMessage, undefined, err.extras);
  if (err instanceof HTTPException && err.status >= 400 && err.status < 500) {
    const { status, code, message } = clientErrorFrom(err, c);
    return errorResponse(c, status, code, message);
  }
  logLine(c, "error", "unhandled error", { error: errorField(err) });
  return errorResponse(c, 500, "INTERNAL_ERROR", "Internal error. The request was not completed.");
}

/** Formats zod validation failures from @hono/zod-openapi into the error envelope. */
export function validationHook(
  result: { success: true } | { success: false; error: ZodError; target?: string },
  c: Context<AppEnv>,
): Response | undefined {
  if (result.success) return undefined;
  const target = result.target ?? "json";
  const message = result.error.issues
    .map((issue) => {
      if (issue.code === "unrecognized_keys") return `unknown body field(s): ${issue.keys.join(", ")} (allowed: url, webhookUrl)`;
      // A message that already names its field ("url is required") is not prefixed with it again.
      const field = issue.path.join(".");
      const where = field && !issue.message.startsWith(`${field} `) ? `${field}: ` : "";
      return `${where}${issue.message}`;
    })
    .join("; ");
  if (target === "json") {
    const body = message.includes("expected object") || message === "" ? "The body must be a JSON object: { \"url\": \"https://...\" }." : message;
    return errorResponse(c, 400, "INVALID_PAYLOAD", body);
  }
  return errorResponse(c, 400, "INVALID_PARAMETER", message);
}
