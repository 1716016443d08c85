import type { z } from "zod";
import type { FactSources } from "../shapes/media-data.ts";
import type { InspectData } from "../schemas/inspect-data.ts";
import type { ResourceRecord } from "../schemas/record.ts";

type Sources = z.infer<typeof FactSources>;
type Metadata = NonNullable<InspectData["metadata"]>;

/**
 * `metadata.sources`: one map of where each reported fact came from, derived from the
 * per-stream maps so the two can never disagree. The video stream speaks for duration, fps, dimensions and
 * bitrate when there is one; the audio stream for the sample rate (and for the rest of an audio file). Image
 * dimensions come from a header reader at the edge, or from the runner's decoder. Only facts the response
 * reports appear; absent when nothing is known yet (a pending metadata stage).
 */
export function topLevelSources(record: ResourceRecord, metadata: Pick<Metadata, "image" | "video" | "audio">): Sources | undefined {
  const out: Sources = { ...metadata.audio?.sources, ...metadata.video?.sources };
  if (metadata.audio?.sources?.sampleRate) out.sampleRate = metadata.audio.sources.sampleRate;
  const image = metadata.image;
  if (image && image.width !== undefined && out.dimensions === undefined) {
    out.dimensions = record.stages["metadata:image"]?.engine === "runner" ? "decoder" : "header";
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
