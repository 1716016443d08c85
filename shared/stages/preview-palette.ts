import { defineStage } from "./definition.ts";

/** The dominant colour of the same picture as the thumbnail. */
export const previewPalette = defineStage({
  name: "preview:palette",
  categories: ["image", "video"],
  engines: ["edge", "runner"],
  group: "preview",
  runnerStage: "palette",
  write: (output) => (output.dominantColor ? { dominantColor: output.dominantColor } : undefined),
  fills: ["preview.palette", "preview.dominantColor"],
});
