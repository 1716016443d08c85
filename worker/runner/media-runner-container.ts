import { Container } from "@cloudflare/containers";

/**
 * The media runner as a Cloudflare Container (production). Local dev, tests and self-hosting reach the
 * runner over HTTP at RUNNER_URL instead (no Docker engine needed).
 */
export class MediaRunnerContainer extends Container<Env> {
  override defaultPort = 8788;
  override sleepAfter = "5m";

  constructor(ctx: DurableObjectState<{}>, env: Env) {
    super(ctx, env);
    const token = (env as unknown as { RUNNER_TOKEN?: string }).RUNNER_TOKEN ?? "";
    this.envVars = { RUNNER_TOKEN: token, RUNNER_HOST: "0.0.0.0", RUNNER_PORT: "8788" };
  }
}
