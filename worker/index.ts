import { createApp } from "./http/app.ts";
import { handleRunnerWorkBatch } from "./queue/runner-work-consumer.ts";

export { ResourceObject } from "./object/resource-object.ts";
export { IdempotencyObject } from "./idempotency/idempotency-object.ts";
export { MediaRunnerContainer } from "./runner/media-runner-container.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: handleRunnerWorkBatch,
} satisfies ExportedHandler<Env>;
