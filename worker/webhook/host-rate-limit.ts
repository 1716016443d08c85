import type { RateConfig } from "../config/rate-config.ts";
import { bindingOf, checkRate, type RateDecision } from "../rate/rate-check.ts";

/** Whether one more webhook POST to `host` fits its per-host limit now (deliveries over it wait). */
export async function webhookHostAllowed(env: unknown, config: RateConfig, host: string): Promise<RateDecision> {
  if (config.WEBHOOK_HOST_RATE_LIMIT === 0) return { allowed: true, limit: 0, periodSeconds: config.WEBHOOK_HOST_RATE_PERIOD_SECONDS, resetSeconds: 0 };
  return checkRate(bindingOf(env, "WEBHOOK_RATE_LIMITER"), "webhook", host, config.WEBHOOK_HOST_RATE_LIMIT, config.WEBHOOK_HOST_RATE_PERIOD_SECONDS);
}
