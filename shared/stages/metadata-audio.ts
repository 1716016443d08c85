import { defineStage } from "./definition.ts";
import { trackResults } from "./track-results.ts";

/** Duration, bitrate, sample rate, channels, codec: container headers at probe time, else the runner's ffprobe. */
export const metadataAudio = defineStage({
  name: "metadata:audio",
  categories: ["audio"],
  engines: ["inline", "runner"],
  group: "metadata",
  runnerStage: "metadata",
  write: (output) => (output.metadata?.audio
    ? { audio: output.metadata.audio, ...(output.metadata.codecs?.length ? { codecs: output.metadata.codecs } : {}), ...trackResults(output.metadata) }
    : undefined),
  fills: ["metadata.audio"],
  show: (results) => ({ audio: results.audio }),
});
