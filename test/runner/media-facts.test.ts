// Issue 9 on the runner side: the facts ffprobe/sharp report for the classes the service used to get wrong
// (fixtures from testkit/media-fixtures.ts), scored against ffprobe's own JSON, and previews for the image
// formats sharp cannot decode (BMP, ICO, JPEG XL go through ffmpeg).
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { RunnerResponse, type RunnerRequestInput } from "../../shared/shapes/runner.ts";
import { ensureMediaFixtures } from "../../testkit/media-fixtures.ts";
import { ffprobeReference } from "../../testkit/ffprobe-reference.ts";
import { decodeThumbnail, processRequest, testApp } from "../../testkit/runner/harness.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";

const dir = ensureMediaFixtures(join(import.meta.dirname, "..", ".fixtures", "media"));
let app: RunnerApp;
let origin: LoopbackOrigin;

beforeAll(async () => {
  origin = await startLoopbackOrigin([dir]);
  app = await testApp({ SSRF_ALLOWLIST: new URL(origin.url).host });
});
afterAll(async () => {
  await app.close();
  await origin.close();
});

async function processOk(file: string, category: RunnerRequestInput["category"]) {
  const res = await processRequest(app, { url: `${origin.url}/files/${file}`, category, stages: ["metadata", "thumbnail"] });
  expect(res.statusCode, res.body).toBe(200);
  return RunnerResponse.parse(res.json());
}

describe("video facts from ffprobe", () => {
  it.each(["rotated-90.mp4", "rotated-90.mov"])("%s: displayed size and rotation from the display matrix", async (file) => {
    const ref = await ffprobeReference(dir, file);
    const { metadata, thumbnail } = await processOk(file, "video");
    expect(metadata?.video).toMatchObject({ width: 240, height: 320, rotation: 90, codec: "h264", profile: "Constrained Baseline", pixelFormat: "yuv420p", hdr: "sdr" });
    expect([metadata?.video?.width, metadata?.video?.height]).toEqual([ref.video!.width, ref.video!.height]);
    // The thumbnail is upright: portrait like the displayed picture.
    expect(thumbnail!.height).toBeGreaterThan(thumbnail!.width);
    if (file.endsWith(".mp4")) expect(metadata?.video?.channels).toBe(2);
  });

  it("truncated MP4: container facts although most frames are missing", async () => {
    const { metadata } = await processOk("truncated.mp4", "video");
    expect(metadata?.video).toMatchObject({ width: 640, height: 360, codec: "h264", fps: 25 });
    expect(metadata?.video?.duration?.seconds).toBeCloseTo(4, 1);
  });
});

describe("audio facts from ffprobe", () => {
  it.each([
    ["opus.webm", { sampleRate: 48000, channels: 2, channelLayout: "stereo", codec: "opus" }],
    ["flac.mka", { sampleRate: 44100, channels: 2, channelLayout: "stereo", codec: "flac", bitDepth: 16 }],
    ["audio.wma", { sampleRate: 44100, channels: 2, channelLayout: "stereo", codec: "wmav2" }],
  ] as const)("%s", async (file, expected) => {
    const { metadata } = await processOk(file, "audio");
    expect(metadata?.audio).toMatchObject(expected);
    if (!("bitDepth" in expected)) expect(metadata?.audio?.bitDepth).toBeUndefined(); // lossy codecs have none
    const ref = await ffprobeReference(dir, file);
    expect(Math.abs(metadata!.audio!.duration!.seconds - ref.duration!) / ref.duration!).toBeLessThanOrEqual(0.02);
  });
});

describe("images sharp cannot decode get metadata and previews through ffmpeg", () => {
  it.each([
    ["image.bmp", 96, 64],
    ["image.ico", 48, 48],
    ["image.jxl", 96, 64],
  ] as const)("%s", async (file, width, height) => {
    const { metadata, thumbnail } = await processOk(file, "image");
    expect(metadata?.image).toMatchObject({ width, height, frames: 1 });
    const thumb = await decodeThumbnail(thumbnail!.base64);
    expect([thumb.width, thumb.height]).toEqual([width, height]);
  });

  it("animated GIF: frames, one play's duration and loop from sharp", async () => {
    const ref = await ffprobeReference(dir, "animated.gif");
    const { metadata } = await processOk("animated.gif", "image");
    expect(metadata?.image).toMatchObject({ width: 96, height: 64, frames: ref.video!.frames, loop: 0 });
    expect(metadata?.image?.duration?.seconds).toBeCloseTo(ref.duration!, 1);
  });
});
