import type { Config } from "../config/config.ts";
import { errors } from "../errors/api-error.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { finishStage } from "../record/stage-state.ts";
import { fetchOembed, oembedEndpoint, oembedRequestUrl } from "../oembed/oembed-client.ts";

/**
 * The `oembed` stage for a provider resource: title, native thumbnail and embed facts from the provider's
 * oEmbed endpoint. 401/403 means embedding is disabled for that media (a result, not a failure); 404 means the
 * media does not exist (RESOURCE_NOT_FOUND); anything else ends the stage as failed and keeps the URL-parsed data.
 */
export async function runOembedStage(record: ResourceRecord, config: Config): Promise<void> {
  const provider = record.provider;
  if (!provider || record.stages.oembed?.state !== "pending") return;
  const started = performance.now();
  const done = (state: "done" | "failed", error?: string) =>
    finishStage(record, "oembed", { state, durationMs: performance.now() - started, engine: "provider", ...(error ? { error } : {}) });
  if (!provider.oembed) {
    done("done");
    return;
  }
  const discovered = provider.detectionMethod === "oembed-discovery";
  const requestUrl = discovered ? provider.oembed.endpoint : oembedRequestUrl(oembedEndpoint(provider.oembed.endpoint, config), provider.oembed.url);
  const outcome = await fetchOembed(requestUrl, config);
  record.timings.oembed = Math.round(performance.now() - started);
  switch (outcome.kind) {
    case "ok":
      record.results.oembed = outcome.data;
      if (outcome.data.title) record.results.title = outcome.data.title;
      record.results.embeddable = true;
      done("done");
      return;
    case "not-embeddable":
      record.results.embeddable = false;
      record.results.embeddableReason = `The provider does not allow embedding this media (oEmbed answered ${outcome.status}).`;
      done("done");
      return;
    case "not-found":
      throw errors.notFound();
    case "failed":
      done("failed", outcome.reason);
      return;
  }
}
