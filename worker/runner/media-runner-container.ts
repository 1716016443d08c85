import { Container } from "@cloudflare/containers";

/**
 * Runner settings a container takes from the Worker's environment (wrangler.toml [vars] and secrets): the
 * container sees only what is passed here, never the Worker's whole environment.
 */
export const runnerSettingsPassedThrough = [
  "RUNNER_TOKEN", "RUNNER_CONCURRENCY", "RUNNER_MAX_QUEUE", "RUNNER_JOB_TIMEOUT_MS", "RUNNER_PROCESS_TIMEOUT_MS",
  "RUNNER_FETCH_TIMEOUT_MS", "RUNNER_MAX_DECODE_PIXELS", "RUNNER_LOG_LEVEL",
] as const;

/** The container's environment: the passed-through settings that are set, and where to listen. */
export function runnerContainerEnv(env: Partial<Record<(typeof runnerSettingsPassedThrough)[number], unknown>>): Record<string, string> {
  const vars: Record<string, string> = { RUNNER_HOST: "0.0.0.0", RUNNER_PORT: "8788" };
  for (const name of runnerSettingsPassedThrough) {
    const value = env[name];
    if (typeof value === "string" && value !== "") vars[name] = value;
  }
  return vars;
}

/**
 * The media runner as a Cloudflare Container (production): one instance per name (`runner-<n>`, see
 * runner-pool.ts). Local dev, tests and self-hosting reach runners over HTTP at RUNNER_URL(S) instead (no
 * Docker engine needed).
 */
export class MediaRunnerContainer extends Container<Env> {
  override defaultPort = 8788;
  override sleepAfter = "5m";

  constructor(ctx: DurableObjectState<{}>, env: Env) {
    super(ctx, env);
    this.envVars = runnerContainerEnv(env);
  }
}
