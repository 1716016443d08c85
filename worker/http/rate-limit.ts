import type { MiddlewareHandler } from "hono";
import { getConfig } from "../config/config.ts";
import { errorBody } from "../errors/api-error.ts";
import { bindingOf, checkRate, type RateDecision } from "../rate/rate-check.ts";
import { clientKey } from "./client-identity.ts";

/**
 * Per-client rate limit of /api/v1/inspect, GET, HEAD and POST alike, as middleware and response fields; the checks themselves are in worker/rate/rate-check.ts. Limits
 * are the named settings in worker/config/config.ts; keep wrangler.toml's `simple` blocks equal to them.
 */

/** RateLimit-Policy and RateLimit fields (IETF draft-ietf-httpapi-ratelimit-headers, structured fields). */
export function rateLimitHeaders(policy: string, decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = { "RateLimit-Policy": `"${policy}";q=${decision.limit};w=${decision.periodSeconds}` };
  if (decision.remaining !== undefined) headers.RateLimit = `"${policy}";r=${decision.remaining};t=${decision.resetSeconds}`;
  if (!decision.allowed) headers["Retry-After"] = String(decision.resetSeconds);
  return headers;
}

export { clientAddressOf, clientKey } from "./client-identity.ts";

/**
 * One inspection spent from the client's window, as the middleware spends it per request; callers that are not a
 * route of their own (the MCP tools) spend it per inspection. Undefined when the limit is off.
 */
export async function spendInspection(env: Env, request: Request): Promise<RateDecision | undefined> {
  const config = getConfig(env);
  if (config.INSPECT_RATE_LIMIT === 0) return undefined;
  return checkRate(bindingOf(env, "INSPECT_RATE_LIMITER"), "inspect", clientKey(request, env), config.INSPECT_RATE_LIMIT, config.INSPECT_RATE_PERIOD_SECONDS);
}

/**
 * Middleware for the inspect routes: 429 with Retry-After and RateLimit fields once a client passes its limit.
 * Every request routed to it counts, whatever its method: mount it on each method that reaches an inspection.
 * Hono answers HEAD with the GET route (RFC 9110 9.3.2: HEAD is GET without the body), so a HEAD runs the same
 * inspection and is counted like the GET it is; a preflight is answered by CORS before routing and never gets here.
 */
export function inspectRateLimit(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const decision = await spendInspection(c.env, c.req.raw);
    if (!decision) return next();
    const headers = rateLimitHeaders("inspect", decision);
    if (!decision.allowed) {
      return c.json(errorBody("RATE_LIMITED", `Too many inspections from this client: at most ${decision.limit} per ${decision.periodSeconds} s.`), 429, headers);
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
