import { createApp } from "./http/app.ts";
import { handleEnrichBatch } from "./queue/enrich-consumer.ts";

export { ResourceObject } from "./object/resource-object.ts";
export { IdempotencyObject } from "./idempotency/idempotency-object.ts";
export { MediaRunnerContainer } from "./runner/media-runner-container.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: handleEnrichBatch,
} satisfies ExportedHandler<Env>;
