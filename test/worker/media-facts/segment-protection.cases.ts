// A media segment's own declaration of encryption through the API: pssh boxes in its moof name the key systems,
// a segment names no codecs (its init segment does), so no browser verdict is given at all (never native), and a
// segment with 100,000 of them is answered as quickly with the same. And a stream's WebVTT chapter list.
import { describe, expect, it } from "vitest";
import { inspect, media } from "../../../testkit/worker/helpers.ts";

describe("pssh boxes in a media segment's moof", { timeout: 60_000 }, () => {
  for (const file of ["frag-pssh.m4s", "frag-100k-pssh.m4s"]) {
    it(`${file}: protection with Widevine and PlayReady in fast, no verdict claimed`, async () => {
      const { status, body } = await inspect(media(file), "profile=fast");
      expect(status).toBe(200);
      expect(body.data.semantic.segment).toBe("media");
      expect(body.data.metadata.protection.encrypted).toBe(true);
      expect([...body.data.metadata.protection.keySystems].sort()).toEqual(["com.microsoft.playready", "com.widevine.alpha"]);
      expect(body.data.playback.compatibility).toBeUndefined();
      // Nothing decodes a media segment alone: its previews end with that reason (or as encrypted), never a picture.
      expect(body.processing.pendingStages).toEqual([]);
    });
  }
});

describe("a stream's chapter list through the API", { timeout: 60_000 }, () => {
  it("an HLS master naming a WebVTT chapter list: metadata.chapters in fast", async () => {
    const { status, body } = await inspect(media("hls-chapters/master.m3u8"), "profile=fast");
    expect(status).toBe(200);
    // The cues of testkit/stream-chapter-fixtures.ts (ffmpeg's WebVTT; test/unit/stream-chapters.test.ts checks the
    // same cues against ffprobe's reading).
    expect(body.data.metadata.chapters).toEqual([{ start: 0, title: "Intro" }, { start: 1.25, title: "Main part" }, { start: 62.5, title: "Credits" }]);
    expect(body.data.metadata.tracks.video).toHaveLength(1);
  });
});
