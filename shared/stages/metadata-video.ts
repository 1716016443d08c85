import { defineStage } from "./definition.ts";
import { trackResults } from "./track-results.ts";

/** Duration, fps, bitrate, dimensions, codec: container headers at probe time, else the runner's ffprobe. */
export const metadataVideo = defineStage({
  name: "metadata:video",
  categories: ["video"],
  engines: ["inline", "runner"],
  group: "metadata",
  runnerStage: "metadata",
  write: (output) => (output.metadata?.video
    ? { video: output.metadata.video, ...(output.metadata.codecs?.length ? { codecs: output.metadata.codecs } : {}), ...trackResults(output.metadata) }
    : undefined),
  fills: ["metadata.video"],
  show: (results) => ({ video: results.video }),
});
