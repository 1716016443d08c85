import { defineStage } from "./definition.ts";

/** The provider's oEmbed answer: title, native thumbnail, whether embedding is allowed. */
export const oembed = defineStage({
  name: "oembed",
  categories: ["embedded"],
  engines: ["inline"],
  group: "provider",
  fills: ["providerData.oembed"],
});
