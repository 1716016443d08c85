import type { Context } from "hono";
import { getConfig } from "../config/config.ts";
import type { AppEnv } from "./app-env.ts";
import { bindingOf, checkRate, type RateDecision } from "../rate/rate-check.ts";
import { clientKey, rateLimitHeaders } from "./rate-limit.ts";

/**
 * A batch spends the client's inspect rate limit once per URL, so a batch is never a way
 * around it: `admitted[i]` says whether URL i fit. The headers are the last decision's (what is left now).
 */
export async function admitBatch(c: Context<AppEnv>, count: number): Promise<{ admitted: boolean[]; headers: Record<string, string> }> {
  const config = getConfig(c.env);
  if (config.INSPECT_RATE_LIMIT === 0) return { admitted: new Array<boolean>(count).fill(true), headers: {} };
  const admitted: boolean[] = [];
  let last: RateDecision | undefined;
  for (let i = 0; i < count; i++) {
    last = await checkRate(bindingOf(c.env, "INSPECT_RATE_LIMITER"), "inspect", clientKey(c.req.raw, c.env), config.INSPECT_RATE_LIMIT, config.INSPECT_RATE_PERIOD_SECONDS);
    admitted.push(last.allowed);
  }
  return { admitted, headers: last ? rateLimitHeaders("inspect", last) : {} };
}
