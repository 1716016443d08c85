import { defineStage } from "./definition.ts";

/** A sprite of evenly spaced keyframes and its WebVTT thumbnails track (hover previews), on request. */
export const previewStoryboard = defineStage({
  name: "preview:storyboard",
  categories: ["video"],
  engines: ["runner"],
  group: "preview",
  runnerStage: "storyboard",
  write: (output) => (output.storyboard ? { storyboard: output.storyboard } : undefined),
  fills: ["preview.storyboard"],
  show: (results) => ({ storyboard: results.storyboard }),
  optIn: "storyboard",
});
