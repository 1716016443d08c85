// Capture and rights where the head does not hold them: MP4s with the moov after the mdat (one later Range read of
// what follows the moov's tracks, never the file), HEIF/AVIF stills and Vorbis-comment audio; each checked against
// exiftool's own reading of files ffmpeg, heif-enc and exiftool made (testkit/provenance-more-fixtures.ts).
import { describe, expect, it } from "vitest";
import { inspect, media, originStats } from "../../../testkit/worker/helpers.ts";
import type { ExiftoolReading } from "../../../testkit/provenance-fixtures.ts";
import { fixtureFacts } from "../../../testkit/worker/fixture-facts.ts";

const reference = await fixtureFacts("provenanceMoreFacts");

/** "2024:05:06 07:08:09+02:00" (exiftool) and "2024-05-06T07:08:09+02:00" (ISO) to one comparable form. */
function normalTime(value: string): string {
  return value.replace(/[^0-9+\-Z]/g, "").replace(/^(\d{4})-?(\d{2})-?(\d{2})/, "$1$2$3").replace(/Z$/, "");
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function expectAgrees(data: any, want: ExiftoolReading): void {
  const capture = data.metadata.capture;
  const rights = data.metadata.rights;
  if (want.takenAt) expect(normalTime(capture.takenAt)).toBe(normalTime(want.takenAt));
  else expect(capture?.takenAt).toBeUndefined();
  expect(capture?.device?.make).toBe(want.make);
  expect(capture?.device?.model).toBe(want.model);
  if (want.latitude !== undefined) {
    expect(Math.abs(capture.location.latitude - want.latitude)).toBeLessThanOrEqual(1.01e-5);
    expect(Math.abs(capture.location.longitude - want.longitude!)).toBeLessThanOrEqual(1.01e-5);
  } else expect(capture?.location).toBeUndefined();
  expect(rights?.creator).toBe(want.creator);
  expect(rights?.copyright).toBe(want.copyright);
}

const moovLast = ["moov-last-keys.mp4", "moov-last-items.mp4"];

describe("MP4 with the moov after the mdat", { timeout: 60_000 }, () => {
  for (const file of moovLast) {
    it(`${file}: the suffix read sent with the head holds the user data, so fast has it with no further request`, async () => {
      const { status, body } = await inspect(media(file), "profile=fast");
      expect(status).toBe(200);
      expect(body.data.metadata.video.faststart).toBe(false);
      expect(body.processing.completedStages).toContain("metadata:provenance");
      expectAgrees(body.data, reference[file]!);
    });

    const bare = file.replace(/\.mp4$/, "");
    it(`${bare} (no extension, no suffix read): fast leaves it pending; the later stage completes it with one small read`, async () => {
      const url = media(bare);
      const fast = await inspect(url, "profile=fast");
      expect(fast.status).toBe(200);
      expect(fast.body.data.metadata.video.faststart).toBe(false);
      expect(fast.body.processing.pendingStages).toContain("metadata:provenance");
      expect(fast.body.data.metadata.capture).toBeNull();
      const full = await inspect(url, "profile=full&debug=true");
      expect(full.status).toBe(200);
      expect(full.body.processing.completedStages).toContain("metadata:provenance");
      expectAgrees(full.body.data, reference[file]!);
      const stage = full.body.data.diagnostics.stages["metadata:provenance"];
      expect(stage).toMatchObject({ state: "done", engine: "edge", requests: 1 });
      expect(stage.method).toMatch(/^moov tail: one read of \d+ bytes at \d+$/);
      // One Range request for the user data: a few KiB, never the file (the file is ~390 KB, its moov ~120 KB).
      const nonce = new URL(url).searchParams.get("n")!;
      const ranges = (await originStats()).requests.filter((r) => r.path.includes(nonce)).map((r) => r.range ?? "none");
      expect(ranges).not.toContain("none");
      const [, from, to] = /^bytes=(\d+)-(\d+)$/.exec(stage.method.replace(/^moov tail: one read of (\d+) bytes at (\d+)$/, (_m: string, n: string, at: string) => `bytes=${at}-${Number(at) + Number(n) - 1}`))!;
      expect(ranges.filter((r) => r === `bytes=${from}-${to}`)).toHaveLength(1);
      expect(Number(to) - Number(from) + 1).toBeLessThan(8 * 1024);
    });
  }
});

describe("HEIF/AVIF stills and Vorbis comments agree with exiftool, in fast", { timeout: 60_000 }, () => {
  for (const file of ["tagged.heic", "tagged.avif", "tagged-vorbis.ogg", "tagged-vorbis.opus", "tagged-vorbis.flac"]) {
    it(file, async () => {
      const { status, body } = await inspect(media(file), "profile=fast");
      expect(status).toBe(200);
      expect(body.processing.completedStages).toContain("metadata:provenance");
      expectAgrees(body.data, reference[file]!);
      expect(body.data.provenance).toEqual({ c2pa: { present: false }, aiGenerated: null });
    });
  }
});
