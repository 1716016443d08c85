import type { Context, MiddlewareHandler } from "hono";
import { requestId } from "hono/request-id";
import { matchedRoutes } from "hono/route";
import { maxRequestIdLength } from "../../shared/schemas/request-id.ts";
import { logEvent } from "../log/event-log.ts";
import type { AppEnv, RequestLogFields } from "./app-env.ts";

export { maxRequestIdLength };

/** X-Request-Id on every response: the caller's when sane, else a generated UUID. */
export const requestIdentity = requestId({ limitLength: maxRequestIdLength });

/** Adds fields to this request's log line. */
export function annotate(c: Context<AppEnv>, fields: RequestLogFields): void {
  c.set("log", { ...c.get("log"), ...fields });
}

/** Writes a JSON log line that carries the request id (for lines other than the per-request one). */
export function logLine(c: Context<AppEnv>, level: "info" | "error", message: string, extra: Record<string, unknown> = {}): void {
  logEvent(level, message, { requestId: c.get("requestId"), ...extra });
}

/**
 * One structured JSON line per request, written when the answer is ready: id, method, matched route, status,
 * duration and what the handler added (profile, responseSource, target host, bytes pulled, error code).
 * Runs after request-id, so the id is known; errors are already turned into responses by onError.
 */
export const requestLog: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  await next();
  const route = c.req.method === "OPTIONS" && c.res.status === 204 ? "preflight" : matchedRoute(c);
  const line = {
    level: c.res.status >= 500 ? "error" : "info",
    msg: "request",
    time: new Date().toISOString(),
    requestId: c.get("requestId"),
    method: c.req.method,
    route,
    status: c.res.status,
    ms: Math.round(performance.now() - started),
    ...c.get("log"),
  };
  console.log(JSON.stringify(line));
};

/** The route pattern that answered (`/api/v1/job/:id`), not the raw path (which may carry ids or junk). */
function matchedRoute(c: Context<AppEnv>): string {
  // Middleware is registered for ALL methods; the route that answered is the last one bound to a method.
  const handler = matchedRoutes(c).filter((r) => r.method !== "ALL").at(-1);
  return handler?.path ?? "unmatched";
}
