import { defineStage } from "./definition.ts";

/**
 * The media a page names (og:video, og:audio, twitter:player:stream, JSON-LD contentUrl), inspected as its own
 * resource by its Durable Object (same SSRF checks, same cache) before the page's first answer.
 */
export const pageMedia = defineStage({
  name: "page:media",
  categories: ["webpage"],
  engines: ["inline"],
  group: "metadata",
  fills: ["page.media"],
});
