import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { corsOriginList, getConfig } from "../config/config.ts";
import type { AppEnv } from "./app-env.ts";

/** Response headers a browser page may read: tracing, timings, where to poll, back-off, rate limits, caching, replays. */
export const exposedHeaders = [
  "X-Request-Id",
  "Server-Timing",
  "Location",
  "Retry-After",
  "RateLimit",
  "RateLimit-Policy",
  "ETag",
  "Cache-Status",
  "Age",
  "Idempotent-Replayed",
];

/** How long a browser may cache a preflight answer. */
const preflightMaxAgeSeconds = 600;

const bySetting = new Map<string, MiddlewareHandler>();

/**
 * CORS with Hono's middleware: every response (errors and thumbnails included) carries
 * Access-Control-Allow-Origin, and preflights are answered before routing. The API takes no credentials,
 * so `*` is the default; `CORS_ORIGINS` narrows it to a list (then `Vary: Origin` is sent).
 */
export const corsForConfiguredOrigins: MiddlewareHandler<AppEnv> = (c, next) => {
  const setting = getConfig(c.env).CORS_ORIGINS;
  let middleware = bySetting.get(setting);
  if (!middleware) {
    const origins = corsOriginList(setting);
    middleware = cors({
      origin: origins.includes("*") || origins.length === 0 ? "*" : origins,
      allowMethods: ["GET", "HEAD", "POST", "OPTIONS"],
      exposeHeaders: exposedHeaders,
      maxAge: preflightMaxAgeSeconds,
    });
    bySetting.set(setting, middleware);
  }
  return middleware(c, next);
};
