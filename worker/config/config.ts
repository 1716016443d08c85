import { z } from "zod";
import { DispatchConfigSchema } from "./dispatch-config.ts";
import { EnrichConfigSchema } from "./enrich-config.ts";
import { FetchConfigSchema } from "./fetch-config.ts";
import { HttpConfigSchema } from "./http-config.ts";
import { ProbeConfigSchema } from "./probe-config.ts";
import { ProvenanceConfigSchema } from "./provenance-config.ts";
import { RateConfigSchema } from "./rate-config.ts";
import { RetentionConfigSchema } from "./retention-config.ts";
import { RunnerConfigSchema } from "./runner-config.ts";
import { WebhookConfigSchema } from "./webhook-config.ts";

export { corsOriginList } from "./http-config.ts";
export { runnerUrlList } from "./runner-config.ts";

/**
 * All Worker settings, read once per request from the environment (wrangler vars, `npm start` env, or test
 * bindings) and validated here. Each layer's settings are a zod slice of their own (`*-config.ts` in this
 * folder, each field with its default and its check; config sits below every layer, so each may import its
 * slice), composed into this one object. A bad value fails loudly, naming the variable.
 */
export const configSlices = {
  fetch: FetchConfigSchema,
  probe: ProbeConfigSchema,
  retention: RetentionConfigSchema,
  enrich: EnrichConfigSchema,
  runner: RunnerConfigSchema,
  dispatch: DispatchConfigSchema,
  webhook: WebhookConfigSchema,
  rate: RateConfigSchema,
  http: HttpConfigSchema,
  provenance: ProvenanceConfigSchema,
} as const;

export const ConfigSchema = z.object({
  ...FetchConfigSchema.shape,
  ...ProbeConfigSchema.shape,
  ...RetentionConfigSchema.shape,
  ...EnrichConfigSchema.shape,
  ...RunnerConfigSchema.shape,
  ...DispatchConfigSchema.shape,
  ...WebhookConfigSchema.shape,
  ...RateConfigSchema.shape,
  ...HttpConfigSchema.shape,
  ...ProvenanceConfigSchema.shape,
});
export type Config = z.infer<typeof ConfigSchema>;

const cache = new WeakMap<object, Config>();

/** Parses the environment once per env object. Throws an Error naming each bad variable. */
export function getConfig(env: object): Config {
  const hit = cache.get(env);
  if (hit) return hit;
  const source: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.shape)) {
    const value = (env as Record<string, unknown>)[key];
    if (typeof value === "string" && value !== "") source[key] = value;
  }
  const parsed = ConfigSchema.safeParse(source);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid configuration: ${detail}`);
  }
  cache.set(env, parsed.data);
  return parsed.data;
}
