import type { MiddlewareHandler } from "hono";
import { getConfig, type Config } from "../config/config.ts";
import { errorBody } from "../errors/api-error.ts";

/**
 * Per-client rate limit of /api/v1/inspect, GET, HEAD and POST alike (issue 15, findings 4 and 9; issue 20, item 3), and the per-target-host limit of
 * webhook deliveries (finding 7). On Cloudflare it uses the Rate Limiting bindings declared in wrangler.toml
 * (INSPECT_RATE_LIMITER, WEBHOOK_RATE_LIMITER; miniflare provides them in `wrangler dev` and tests); where a
 * binding is missing (self-hosted workerd) a fixed-window counter in the isolate stands in. Limits are the
 * named settings in worker/config/config.ts; keep wrangler.toml's `simple` blocks equal to them.
 */

export interface RateDecision {
  allowed: boolean;
  limit: number;
  periodSeconds: number;
  /** Seconds until the window resets (an upper bound when the platform binding decided). */
  resetSeconds: number;
  /** Requests left in the window, when known. */
  remaining?: number;
}

interface Limiter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/** The isolate-local stand-in: fixed windows per key, bounded in size so keys cannot exhaust memory. */
class WindowCounter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(private readonly maxKeys = 10_000) {}

  hit(key: string, limit: number, periodMs: number, now: number): { count: number; resetMs: number } {
    let w = this.windows.get(key);
    if (!w || now - w.start >= periodMs) {
      if (this.windows.size >= this.maxKeys) this.evict(now, periodMs);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return { count: w.count, resetMs: w.start + periodMs - now };
  }

  private evict(now: number, periodMs: number) {
    for (const [key, w] of this.windows) if (now - w.start >= periodMs) this.windows.delete(key);
    // Still full: drop the oldest entries (Map keeps insertion order).
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(key);
    }
  }
}

const localCounters = new Map<string, WindowCounter>();

export async function checkRate(
  binding: Limiter | undefined,
  scope: string,
  key: string,
  limit: number,
  periodSeconds: number,
  now = Date.now(),
): Promise<RateDecision> {
  if (binding) {
    const { success } = await binding.limit({ key: `${scope}:${key}` });
    return { allowed: success, limit, periodSeconds, resetSeconds: periodSeconds, ...(success ? {} : { remaining: 0 }) };
  }
  let counter = localCounters.get(scope);
  if (!counter) localCounters.set(scope, (counter = new WindowCounter()));
  const { count, resetMs } = counter.hit(key, limit, periodSeconds * 1000, now);
  return { allowed: count <= limit, limit, periodSeconds, resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)), remaining: Math.max(0, limit - count) };
}

/** RateLimit-Policy and RateLimit fields (IETF draft-ietf-httpapi-ratelimit-headers, structured fields). */
export function rateLimitHeaders(policy: string, decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = { "RateLimit-Policy": `"${policy}";q=${decision.limit};w=${decision.periodSeconds}` };
  if (decision.remaining !== undefined) headers.RateLimit = `"${policy}";r=${decision.remaining};t=${decision.resetSeconds}`;
  if (!decision.allowed) headers["Retry-After"] = String(decision.resetSeconds);
  return headers;
}

/**
 * Who the client is: Cloudflare's CF-Connecting-IP (set by the edge, cannot be forged through it). A request
 * without it (tests calling the Worker directly, self-hosting without a proxy that sets it) shares one bucket.
 */
export function clientKey(request: Request): string {
  return request.headers.get("cf-connecting-ip") ?? "unidentified";
}

export function bindingOf(env: unknown, name: string): Limiter | undefined {
  const value = (env as Record<string, unknown>)[name];
  return value && typeof (value as Limiter).limit === "function" ? (value as Limiter) : undefined;
}

/**
 * Middleware for the inspect routes: 429 with Retry-After and RateLimit fields once a client passes its limit.
 * Every request routed to it counts, whatever its method: mount it on each method that reaches an inspection.
 * Hono answers HEAD with the GET route (RFC 9110 9.3.2: HEAD is GET without the body), so a HEAD runs the same
 * inspection and is counted like the GET it is; a preflight is answered by CORS before routing and never gets here.
 */
export function inspectRateLimit(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const config = getConfig(c.env);
    if (config.INSPECT_RATE_LIMIT === 0) return next();
    const decision = await checkRate(
      bindingOf(c.env, "INSPECT_RATE_LIMITER"),
      "inspect",
      clientKey(c.req.raw),
      config.INSPECT_RATE_LIMIT,
      config.INSPECT_RATE_PERIOD_SECONDS,
    );
    const headers = rateLimitHeaders("inspect", decision);
    if (!decision.allowed) {
      return c.json(errorBody("RATE_LIMITED", `Too many inspections from this client: at most ${decision.limit} per ${decision.periodSeconds} s.`), 429, headers);
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}

/** Whether one more webhook POST to `host` fits its per-host limit now (deliveries over it wait). */
export async function webhookHostAllowed(env: unknown, config: Config, host: string): Promise<RateDecision> {
  if (config.WEBHOOK_HOST_RATE_LIMIT === 0) return { allowed: true, limit: 0, periodSeconds: config.WEBHOOK_HOST_RATE_PERIOD_SECONDS, resetSeconds: 0 };
  return checkRate(bindingOf(env, "WEBHOOK_RATE_LIMITER"), "webhook", host, config.WEBHOOK_HOST_RATE_LIMIT, config.WEBHOOK_HOST_RATE_PERIOD_SECONDS);
}
