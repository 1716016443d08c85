// Issue 23 item 4: `metadata.sources`, one map per response derived from the per-stream maps, valid against the
// schema the OpenAPI document is made from, in every profile that shows metadata.
import { describe, expect, it } from "vitest";
import { project } from "../../shared/projection/index.ts";
import { InspectResponse } from "../../shared/schemas/inspect.ts";
import { buildRecord } from "./fixtures/records.ts";

const metadataOf = (record: ReturnType<typeof buildRecord>, profile: "fast" | "full") => {
  const out = InspectResponse.parse(project(record, { responseSource: "fresh", profile }));
  return out.data.metadata!;
};

describe("metadata.sources", () => {
  it("takes duration, fps, dimensions and bitrate from the video stream's map, in fast and full alike", () => {
    const record = buildRecord("video", "done");
    record.results.video!.sources = { duration: "packets-counted", fps: "header", dimensions: "header", bitrate: "bitrate-estimate" };
    for (const profile of ["fast", "full"] as const) {
      const metadata = metadataOf(record, profile);
      expect(metadata.sources).toStrictEqual({ duration: "packets-counted", fps: "header", dimensions: "header", bitrate: "bitrate-estimate" });
      expect(metadata.video?.sources).toStrictEqual(metadata.sources);
    }
  });

  it("takes the sample rate (and an audio file's duration and bitrate) from the audio stream's map", () => {
    const record = buildRecord("audio", "done");
    record.results.audio!.sources = { duration: "bitrate-estimate", sampleRate: "header", bitrate: "header" };
    expect(metadataOf(record, "full").sources).toStrictEqual({ duration: "bitrate-estimate", sampleRate: "header", bitrate: "header" });
  });

  it("names an image's dimensions by the engine that read them: an edge header reader or the runner's decoder", () => {
    const record = buildRecord("image", "done");
    expect(metadataOf(record, "fast").sources).toStrictEqual({ dimensions: "header" });
    record.stages["metadata:image"] = { ...record.stages["metadata:image"]!, engine: "runner" };
    expect(metadataOf(record, "fast").sources).toStrictEqual({ dimensions: "decoder" });
  });

  it("is absent while the metadata stage is pending, and when no stream says where its facts came from", () => {
    expect(metadataOf(buildRecord("video", "initial"), "fast")).not.toHaveProperty("sources");
    expect(metadataOf(buildRecord("audio", "done"), "full")).not.toHaveProperty("sources");
  });
});
