import { defineStage } from "./definition.ts";

/** A WebP thumbnail stored in R2 (a video's representative frame, the image itself, or an audio file's cover art). */
export const previewThumbnail = defineStage({
  name: "preview:thumbnail",
  categories: ["image", "video", "audio"],
  // Audio has a picture only when it carries cover art: plain audio gets no thumbnail and no runner job.
  whenFound: ["audio"],
  engines: ["edge", "runner"],
  group: "preview",
  runnerStage: "thumbnail",
  write: (output) => (output.thumbnail ? { thumbnail: output.thumbnail } : undefined),
  fills: ["preview.thumbnail"],
  show: (results) => ({ thumbnail: results.thumbnail }),
});
