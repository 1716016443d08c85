import { z } from "zod";
import { int } from "./setting.ts";

/** Settings of `rate/` (the rate checks): inspections per client and webhook POSTs per target host. */
export const RateConfigSchema = z.object({
  /**
   * POST /api/v1/inspect per client (CLIENT_IP_SOURCE) and window; 0 disables. Default 60 per 60 s. On
   * Cloudflare the INSPECT_RATE_LIMITER binding enforces it: keep wrangler.toml's `simple` block equal.
   */
  INSPECT_RATE_LIMIT: int(60),
  /** Window of INSPECT_RATE_LIMIT in seconds (the Cloudflare binding accepts 10 or 60). Default 60. */
  INSPECT_RATE_PERIOD_SECONDS: int(60),
  /** Webhook POSTs per target host and window (more wait for the next window); 0 disables. Default 30 per 60 s. */
  WEBHOOK_HOST_RATE_LIMIT: int(30),
  /** Window of WEBHOOK_HOST_RATE_LIMIT in seconds (10 or 60 with the binding). Default 60. */
  WEBHOOK_HOST_RATE_PERIOD_SECONDS: int(60),
});
export type RateConfig = z.infer<typeof RateConfigSchema>;
