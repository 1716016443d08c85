import { defineStage } from "./definition.ts";

/** A blurhash placeholder of the same picture as the thumbnail. */
export const previewBlurhash = defineStage({
  name: "preview:blurhash",
  categories: ["image", "video"],
  engines: ["edge", "runner"],
  group: "preview",
  runnerStage: "placeholder",
  write: (output) => (output.placeholder ? { placeholder: output.placeholder } : undefined),
  fills: ["preview.placeholder"],
  show: (results) => ({ placeholder: results.placeholder }),
});
