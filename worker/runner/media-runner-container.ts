import { Container } from "@cloudflare/containers";

/** The media runner as a Cloudflare Container (production only; local dev and tests use RUNNER_URL). */
export class MediaRunnerContainer extends Container {
  override defaultPort = 8788;
  override sleepAfter = "5m";
}
