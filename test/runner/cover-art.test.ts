/**
 * Audio cover art becomes the audio's thumbnail: ID3 APIC (MP3), a FLAC picture, covr (M4A), an Ogg Vorbis
 * METADATA_BLOCK_PICTURE, each written by ffmpeg; a file without a cover skips the thumbnail; a cover past the pixel wall fails it, never the
 * metadata.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { makeCoverArtFixtures, withCover } from "../../testkit/cover-art-fixtures.ts";
import { decodeThumbnail, processRequest, testApp } from "../../testkit/runner/harness.ts";

let dir: string;
let origin: LoopbackOrigin;
let app: RunnerApp;
let walled: RunnerApp;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cover-art-"));
  await makeCoverArtFixtures(dir);
  origin = await startLoopbackOrigin([dir]);
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
  // A wall below the cover's 120,000 pixels: the cover is untrusted input like any picture.
  walled = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, RUNNER_MAX_DECODE_PIXELS: "100000" });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await walled?.close();
  await origin?.close();
  await rm(dir, { recursive: true, force: true });
});

async function processAudio(runner: RunnerApp, name: string) {
  const res = await processRequest(runner, { url: `${origin.url}/files/${name}`, category: "audio", stages: ["metadata", "thumbnail"], thumbnailMaxPx: 200 });
  expect(res.statusCode, res.body).toBe(200);
  return RunnerResponse.parse(res.json());
}

describe("an audio file's cover art is its thumbnail", () => {
  for (const name of withCover) {
    it(`${name}: the cover, scaled into thumbnailMaxPx, and the audio's metadata`, async () => {
      const result = await processAudio(app, name);
      expect(result.detected?.category).toBe("audio");
      expect(result.metadata?.audio?.channels).toBe(1);
      expect(result.metadata?.video).toBeUndefined();
      expect(result.stages?.thumbnail).toEqual({ status: "done" });
      expect(result.thumbnail?.contentType).toBe("image/webp");
      const thumb = await decodeThumbnail(result.thumbnail!.base64);
      expect([thumb.width, thumb.height]).toEqual([200, 150]);
    });
  }

  it("an MP3 without a cover: the thumbnail is skipped with the reason", async () => {
    const result = await processAudio(app, "plain.mp3");
    expect(result.stages?.thumbnail).toEqual({ status: "skipped", reason: "the audio has no cover art" });
    expect(result.thumbnail).toBeUndefined();
    expect(result.metadata?.audio?.codec).toBe("mp3");
  });

  it("a cover past the decode pixel wall fails the thumbnail and keeps the metadata", async () => {
    const result = await processAudio(walled, "cover.mp3");
    expect(result.stages?.thumbnail?.status).toBe("failed");
    expect(result.stages?.thumbnail?.reason).toMatch(/^CORRUPT_MEDIA: /);
    expect(result.thumbnail).toBeUndefined();
    expect(result.metadata?.audio?.codec).toBe("mp3");
  });
});
