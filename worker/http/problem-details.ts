/**
 * RFC 9457 problem details for callers that ask for them (`Accept: application/problem+json`): every error
 * envelope this app writes (the error handler's, the rate limit's, the body limit's) is rewritten once, here,
 * so no error path can forget. Callers that do not ask get the error envelope unchanged.
 */
import type { MiddlewareHandler } from "hono";
import { ErrorBody, errorTitles, problemTypePath, type ProblemDetails } from "../../shared/schemas/error.ts";
import type { AppEnv } from "./app-env.ts";

export const problemJsonType = "application/problem+json";

/** Whether Accept names problem+json (media-range matching on a bounded header; no q-value ranking needed). */
export function wantsProblem(accept: string | undefined): boolean {
  return accept !== undefined && accept.slice(0, 1024).toLowerCase().includes(problemJsonType);
}

/** `<base>/problems/<reason or kebab-case code>`: the problem's type URI (each one a page, see problemPage). */
export function problemType(base: string, code: string, reason?: string): string {
  return `${base}${problemTypePath}${reason ?? code.toLowerCase().replaceAll("_", "-")}`;
}

/** Short titles (RFC 9457: the same for every occurrence of the type). */
export const problemTitles: Record<string, string> = {
  "bot-challenge": "The origin answered with a bot-protection challenge",
  "login-required": "The origin requires a signed-in user",
  "consent-wall": "The origin shows a consent wall first",
  "geo-blocked": "The origin blocks this content where it was fetched from",
  "upstream-rate-limited": "The origin rate-limited the service",
  "upstream-error": "The origin failed or sent an invalid answer",
  dns: "The origin's host does not resolve",
  tls: "The TLS handshake with the origin failed",
  timeout: "The origin did not answer in time",
  "too-large": "The remote file exceeds the size limit",
};

/** The request as a URI reference (RFC 9457 `instance`): the request id in a URN, which needs no escaping (its characters are [A-Za-z0-9_=-] or a UUID's). */
export function requestInstance(requestId: string): string {
  return `urn:request:${requestId}`;
}

export function problemFrom(envelope: ErrorBody, status: number, base: string, requestId: string): ProblemDetails {
  const { code, message, reason, upstreamStatus } = envelope.error;
  return {
    type: problemType(base, code, reason),
    title: (reason && problemTitles[reason]) || errorTitles[code],
    status,
    detail: message,
    instance: requestInstance(requestId),
    code,
    ...(reason ? { reason } : {}),
    ...(upstreamStatus !== undefined ? { upstreamStatus } : {}),
  };
}

export function problemDetails(publicBase: (c: Parameters<MiddlewareHandler<AppEnv>>[0]) => string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.res.status < 400 || !wantsProblem(c.req.header("accept"))) return;
    if (!c.res.headers.get("content-type")?.startsWith("application/json")) return;
    const parsed = ErrorBody.safeParse(await c.res.clone().json().catch(() => undefined));
    if (!parsed.success) return;
    const headers = new Headers(c.res.headers);
    headers.set("content-type", problemJsonType);
    headers.delete("content-length");
    const body = problemFrom(parsed.data, c.res.status, publicBase(c), c.get("requestId"));
    c.res = new Response(JSON.stringify(body), { status: c.res.status, headers });
  };
}
