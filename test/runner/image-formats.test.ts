// Issue 23 item 2: a thumbnail, blurhash and palette for every image a decoder on the runner reads. Each class
// is made at set-up (testkit/image-format-fixtures.ts) and served by a loopback origin; the thumbnail is
// decoded back and must show the scene (left red, right blue), so a grey or empty decode fails.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { shrinkOnLoadPixels } from "../../media-runner/src/media/engine-limits.ts";
import { RunnerErrorBody, RunnerResponse } from "../../shared/shapes/runner.ts";
import { ensureFormatFixtures, formatFixtures, hugeWebp, scene } from "../../testkit/image-format-fixtures.ts";
import { processRequest, sharp, testApp } from "../../testkit/runner/harness.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";

let origin: LoopbackOrigin;
let app: RunnerApp;

beforeAll(async () => {
  const dir = ensureFormatFixtures(join(import.meta.dirname, "..", ".fixtures", "formats"));
  origin = await startLoopbackOrigin([dir]);
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
});
afterAll(async () => {
  await app?.close();
  await origin?.close();
});

const allStages = ["metadata", "thumbnail", "placeholder", "palette"] as const;
const distance = (a: ArrayLike<number>, b: ArrayLike<number>) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
const rgbOf = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

async function run(file: string, env?: Record<string, string>) {
  const target = env ? await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, ...env }) : app;
  try {
    const res = await processRequest(target, { url: `${origin.url}/files/${file}`, category: "image", stages: [...allStages] });
    return res;
  } finally {
    if (env) await target.close();
  }
}

/** The thumbnail's pixel at (x, y) as RGB, decoded with sharp. */
async function thumbnailPixels(base64: string) {
  const { data, info } = await sharp(Buffer.from(base64, "base64")).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, at: (x: number, y: number) => Array.from(data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)) };
}

const sceneStills = formatFixtures.filter((f) => f.category === "image" && f.scene && f.mime !== "image/svg+xml");

describe("stills libvips cannot read, decoded by ffmpeg or libheif", () => {
  it.each(sceneStills)("$file: metadata, a thumbnail that shows the scene, a blurhash and the palette", async ({ file }) => {
    const res = await run(file);
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages).toMatchObject({ metadata: { status: "done" }, thumbnail: { status: "done" }, placeholder: { status: "done" }, palette: { status: "done" } });
    expect(result.metadata?.image).toMatchObject({ width: scene.width, height: scene.height, frames: 1 });
    expect(result.thumbnail).toMatchObject({ width: scene.width, height: scene.height, contentType: "image/webp" });
    const thumb = await thumbnailPixels(result.thumbnail!.base64);
    // Lossy codecs (JPEG 2000 at its default rate, HEVC) blur the edge: sample away from it.
    expect(distance(thumb.at(20, 32), scene.main)).toBeLessThan(40);
    expect(distance(thumb.at(88, 32), scene.other)).toBeLessThan(40);
    expect(result.placeholder?.value.length).toBeGreaterThan(20);
    expect(distance(rgbOf(result.dominantColor!), scene.main)).toBeLessThan(40);
  });

  it.each(["fmt-netpbm.pbm", "fmt-netpbm.pgm"])("%s (black and white, grey): metadata and a thumbnail", async (file) => {
    const res = await run(file);
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.image).toMatchObject({ width: scene.width, height: scene.height });
    expect(result.thumbnail).toMatchObject({ width: scene.width, height: scene.height });
    expect(result.dominantColor).toMatch(/^#[0-9a-f]{6}$/);
  });
});

describe("shrink-on-load and damaged files", () => {
  it("a 16000x9000 WebP (144 Mpx, over the 50 Mpx decode limit) gets a thumbnail: libwebp decodes it scaled", async () => {
    const res = await run("fmt-huge.webp");
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.image).toMatchObject(hugeWebp);
    expect(result.thumbnail).toMatchObject({ width: 320, height: 180 });
    expect(distance(rgbOf(result.dominantColor!), scene.main)).toBeLessThan(24);
  });

  it("the memory bound holds: what the scaled decode holds is under the limit, and a lower limit refuses it", async () => {
    expect(shrinkOnLoadPixels("webp", hugeWebp.width, hugeWebp.height, 320)).toBe(320 * 180);
    expect(shrinkOnLoadPixels("jpeg", hugeWebp.width, hugeWebp.height, 320)).toBe(2000 * 1125);
    // A limit under the 320x180 scaled picture: even shrink-on-load cannot fit it.
    const res = await run("fmt-huge.webp", { RUNNER_MAX_DECODE_PIXELS: "50000" });
    expect(res.statusCode).toBe(422);
    expect(RunnerErrorBody.parse(res.json()).error.code).toBe("IMAGE_TOO_LARGE");
  });

  it("a JPEG cut at 60 % of its scan gives a thumbnail of what is there", async () => {
    const res = await run("fmt-truncated.jpg");
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.image).toMatchObject({ width: 640, height: 480 });
    expect(result.thumbnail).toMatchObject({ width: 320, height: 240 });
    expect(result.stages?.thumbnail).toEqual({ status: "done" });
  });

  it("an SVG behind an XML prolog, comment and DOCTYPE is rendered", async () => {
    const res = await run("fmt-prolog.svg");
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.thumbnail).toMatchObject({ width: scene.width, height: scene.height });
    const thumb = await thumbnailPixels(result.thumbnail!.base64);
    expect(distance(thumb.at(20, 32), scene.main)).toBeLessThan(16);
  });
});
