/**
 * Audio cover art becomes the audio's thumbnail: ID3 APIC (MP3), METADATA_BLOCK_PICTURE (FLAC), covr (M4A), each
 * written by ffmpeg; a file without a cover skips the thumbnail; a cover past the pixel wall fails it, never the
 * metadata.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { decodeThumbnail, processRequest, testApp } from "./support/harness.ts";

const run = promisify(execFile);
const ffmpeg = (args: string[]) => run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args]);

let dir: string;
let origin: LoopbackOrigin;
let app: RunnerApp;
let walled: RunnerApp;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cover-art-"));
  const at = (name: string) => join(dir, name);
  const tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=2"];
  // A 400x300 cover: wider than tall, so the thumbnail's shape shows it is the cover.
  await ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=400x300:rate=1", "-frames:v", "1", at("cover.png")]);
  await ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=400x300:rate=1", "-frames:v", "1", at("cover.jpg")]);
  await ffmpeg([...tone, "-c:a", "libmp3lame", "-b:a", "64k", at("plain.mp3")]);
  await ffmpeg([...tone, "-c:a", "flac", at("plain.flac")]);
  await ffmpeg([...tone, "-c:a", "aac", "-b:a", "64k", at("plain.m4a")]);
  await ffmpeg(["-i", at("plain.mp3"), "-i", at("cover.png"), "-map", "0", "-map", "1", "-c", "copy", "-id3v2_version", "3",
    "-metadata:s:v", "comment=Cover (front)", at("cover.mp3")]);
  await ffmpeg(["-i", at("plain.flac"), "-i", at("cover.png"), "-map", "0", "-map", "1", "-c", "copy", "-disposition:v", "attached_pic",
    "-metadata:s:v", "comment=Cover (front)", at("cover.flac")]);
  await ffmpeg(["-i", at("plain.m4a"), "-i", at("cover.jpg"), "-map", "0", "-map", "1", "-c", "copy", "-disposition:v", "attached_pic", at("cover.m4a")]);
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
  for (const name of ["cover.mp3", "cover.flac", "cover.m4a"]) {
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
