import { defineStage } from "./definition.ts";

/** Kind, semantic type and title: decided from the probe (or the provider match) before the first answer. */
export const semantic = defineStage({
  name: "semantic",
  categories: ["image", "video", "audio", "embedded", "webpage"],
  engines: ["inline"],
  group: "core",
  fills: ["semantic"],
});
