import { createApp } from "./http/app.ts";

export { ResourceObject } from "./resource/resource-object.ts";
export { MediaRunnerContainer } from "./runner/media-runner-container.ts";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
