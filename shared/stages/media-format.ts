import { defineStage } from "./definition.ts";

/** MIME from the bytes, size, filename, Range support: the probe itself. */
export const mediaFormat = defineStage({
  name: "mediaFormat",
  categories: ["image", "video", "audio", "embedded", "webpage"],
  engines: ["inline"],
  group: "core",
  fills: ["identity", "playback"],
});
