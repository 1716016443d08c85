// A media segment's own declaration of encryption through the API: pssh boxes in its moof name the key systems,
// a segment names no codecs (its init segment does), so no browser verdict is given at all (never native), and a
// segment with 100,000 of them is answered as quickly with the same.
import { describe, expect, it } from "vitest";
import { inspect, media } from "../../testkit/worker/helpers.ts";

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
