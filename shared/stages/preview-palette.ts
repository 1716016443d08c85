import { defineStage } from "./definition.ts";

/** The palette (up to 6 colours by share) and dominant colour of the same picture as the thumbnail. */
export const previewPalette = defineStage({
  name: "preview:palette",
  categories: ["image", "video"],
  engines: ["edge", "runner"],
  group: "preview",
  runnerStage: "palette",
  write: (output) =>
    output.dominantColor ? { dominantColor: output.dominantColor, ...(output.palette ? { palette: output.palette } : {}) } : undefined,
  fills: ["preview.palette", "preview.dominantColor"],
  show: ({ dominantColor, palette }) => ({
    palette: dominantColor ? { dominant: dominantColor, ...(palette ? { colors: palette } : {}) } : undefined,
    dominantColor,
  }),
});
