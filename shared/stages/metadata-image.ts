import { defineStage } from "./definition.ts";

/** Dimensions, alpha and colour space: from the header at probe time, else the edge decoder, else the runner. */
export const metadataImage = defineStage({
  name: "metadata:image",
  categories: ["image"],
  engines: ["inline", "edge", "runner"],
  group: "metadata",
  runnerStage: "metadata",
  write: (output) => (output.metadata?.image ? { image: output.metadata.image } : undefined),
  fills: ["metadata.image"],
  show: (results) => ({ image: results.image }),
});
