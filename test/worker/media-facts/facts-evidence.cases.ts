// The category decision on its own (worker/probe/evidence.ts): the track list beats the magic number's family,
// cover art never makes a video, ASF without a readable list is audio, and containers without a list keep the
// sniffed family.
import { describe, expect, it } from "vitest";
import { decideCategory } from "../../../worker/probe/evidence.ts";

describe("decideCategory", () => {
  it.each([
    ["video/webm", { video: 0, audio: 1, source: "matroska-tracks" }, "audio", "audio/webm"],
    ["video/matroska", { video: 0, audio: 1, source: "matroska-tracks" }, "audio", "audio/matroska"],
    ["video/mp4", { video: 0, audio: 1, source: "mp4-moov" }, "audio", "audio/mp4"],
    ["video/quicktime", { video: 0, audio: 2, source: "mp4-moov" }, "audio", "audio/mp4"],
    ["video/mp4", { video: 1, audio: 1, source: "mp4-moov" }, "video", "video/mp4"],
    ["audio/ogg", { video: 1, audio: 1, source: "ogg-headers" }, "video", "video/ogg"],
    ["audio/x-ms-asf", { video: 1, audio: 1, source: "asf-header" }, "video", "video/x-ms-asf"],
    ["video/x-ms-asf", { video: 0, audio: 1, source: "asf-header" }, "audio", "audio/x-ms-asf"],
    ["application/vnd.ms-asf", { video: 0, audio: 1, source: "asf-header" }, "audio", "audio/x-ms-asf"],
  ] as const)("%s with %o is %s (%s)", (sniffed, tracks, category, mime) => {
    expect(decideCategory(sniffed, tracks)).toEqual({ category, mime, evidence: `tracks:${tracks.source}` });
  });

  it("an Ogg whose only picture is cover art stays audio (readers never count an attached picture)", () => {
    expect(decideCategory("audio/ogg", { video: 0, audio: 1, source: "ogg-headers" }).category).toBe("audio");
  });

  it("without a track list the sniffed family decides, and ASF is audio rather than a web page", () => {
    expect(decideCategory("video/webm", undefined)).toEqual({ category: "video", mime: "video/webm", evidence: "bytes:video/webm" });
    expect(decideCategory("application/vnd.ms-asf", undefined)).toMatchObject({ category: "audio", mime: "audio/x-ms-asf" });
    expect(decideCategory("image/png", { video: 1, audio: 0, source: "x" })).toMatchObject({ category: "image", mime: "image/png" });
    expect(decideCategory("text/html", undefined)).toMatchObject({ category: "webpage" });
  });
});
