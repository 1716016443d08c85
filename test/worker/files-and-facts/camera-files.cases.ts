// Real camera and phone photos that other people made, shipped in EXIF readers' npm packages (testkit/camera-files.ts):
// the service agrees with exiftool on when, with what and where each was taken and on who owns it, invents nothing
// where the file holds nothing, and finds Content Credentials exactly where exiftool finds a JUMBF block.
import { describe, expect, it } from "vitest";
import { inspect, origin } from "../../../testkit/worker/helpers.ts";
import { fixtureFacts } from "../../../testkit/worker/fixture-facts.ts";

const files = await fixtureFacts("cameraFiles");

/** "2013:02:06 16:00:03.52+01:00" (exiftool) and "2013-02-06T16:00:03+01:00" (ISO): the date and time to the second. */
const toSecond = (value: string) => value.replace(/\D/g, "").slice(0, 14);
const offsetOf = (value: string) => /([+-]\d{2}:\d{2}|Z)$/.exec(value)?.[1];

describe("real camera and phone photos agree with exiftool", () => {
  it("covers phones with GPS, cameras, an author and files with no facts", () => {
    expect(files.length).toBeGreaterThanOrEqual(15);
    expect(files.filter((f) => f.latitude !== undefined).length).toBeGreaterThanOrEqual(5);
    expect(files.filter((f) => f.creator !== undefined).length).toBeGreaterThanOrEqual(1);
    expect(files.filter((f) => f.takenAt === undefined && f.make === undefined).length).toBeGreaterThanOrEqual(3);
  });

  for (const want of files) {
    it(want.path, async () => {
      const url = `${origin}/media/camera/${want.path}?n=${crypto.randomUUID().slice(0, 8)}`;
      // full: a camera's EXIF block often runs past the head fast reads; the later stage reads the rest.
      const { status, body } = await inspect(url, "profile=full");
      expect(status).toBe(200);
      expect(body.processing.completedStages).toContain("metadata:provenance");
      const capture = body.data.metadata.capture;
      const rights = body.data.metadata.rights;
      if (want.takenAt) {
        expect(toSecond(capture.takenAt)).toBe(toSecond(want.takenAt));
        expect(offsetOf(capture.takenAt)).toBe(offsetOf(want.takenAt));
      } else expect(capture?.takenAt).toBeUndefined();
      expect(capture?.device?.make).toBe(want.make?.trim());
      expect(capture?.device?.model).toBe(want.model?.trim());
      if (want.latitude !== undefined) {
        expect(Math.abs(capture.location.latitude - want.latitude)).toBeLessThan(1e-5);
        expect(Math.abs(capture.location.longitude - want.longitude!)).toBeLessThan(1e-5);
      } else expect(capture?.location).toBeUndefined();
      expect(rights?.creator).toBe(want.creator?.trim());
      expect(rights?.copyright).toBe(want.copyright?.trim());
      expect(body.data.provenance.c2pa.present).toBe(want.c2pa);
      // None of these declares AI (no manifest, no IPTC digital source type): never true here.
      expect(body.data.provenance.aiGenerated).toBeNull();
    });
  }
});
