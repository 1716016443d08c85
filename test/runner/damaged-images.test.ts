// Pictures a decoder reads although they are damaged or laid out unusually: junk before the header, segment
// lengths past their segment, cut scans and chunks, bottom-up and 16-bit TGA, tiled and planar TIFF, RGBA PSD,
// PFM. Each file is made at set-up (testkit/longtail-image-fixtures.ts) and served by a loopback origin;
// the runner must answer a thumbnail, and where the picture is the scene, one that shows it.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { embeddedPictureOffset, fallbackDecoders } from "../../media-runner/src/media/image-fallback.ts";
import { decoderOf } from "../../media-runner/src/media/image-decode.ts";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { scene } from "../../testkit/image-format-fixtures.ts";
import { ensureLongtailFixtures, longtailFixtures } from "../../testkit/longtail-image-fixtures.ts";
import { processRequest, sharp, testApp } from "../../testkit/runner/harness.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { readFileSync } from "node:fs";

let origin: LoopbackOrigin;
let app: RunnerApp;
let dir: string;

beforeAll(async () => {
  dir = ensureLongtailFixtures(join(import.meta.dirname, "..", ".fixtures", "longtail"));
  origin = await startLoopbackOrigin([dir]);
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
});
afterAll(async () => {
  await app?.close();
  await origin?.close();
});

const distance = (a: ArrayLike<number>, b: ArrayLike<number>) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

async function pixelAt(base64: string, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(Buffer.from(base64, "base64")).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return Array.from(data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3));
}

describe("damaged and unusual pictures get a thumbnail", () => {
  it.each(longtailFixtures)("$file: metadata and a thumbnail of what decodes", async (fixture) => {
    const res = await processRequest(app, { url: `${origin.url}/files/${fixture.file}`, category: "image", stages: ["metadata", "thumbnail", "placeholder", "palette"] });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages).toMatchObject({ metadata: { status: "done" }, thumbnail: { status: "done" }, placeholder: { status: "done" } });
    expect(result.metadata?.image).toMatchObject({ width: fixture.width, height: fixture.height });
    if (fixture.hasAlpha) expect(result.metadata?.image?.hasAlpha).toBe(true);
    expect(result.thumbnail).toMatchObject({ width: fixture.width, height: fixture.height });
    if (fixture.scene) {
      // Bottom-up rows, planes and tiles all land where they belong: red on the left, blue on the right, upright.
      // A Display P3 picture's numbers are converted to sRGB, further from them (test/runner/jp2-colour.test.ts).
      const tolerance = fixture.colorSpace === "display-p3" ? 60 : 40;
      expect(distance(await pixelAt(result.thumbnail!.base64, 20, 5), scene.main)).toBeLessThan(tolerance);
      expect(distance(await pixelAt(result.thumbnail!.base64, 88, 58), scene.other)).toBeLessThan(tolerance);
    }
  });
});

describe("HDR gain maps", () => {
  it("an Ultra HDR JPEG: libvips finds the gain-map picture, the header says how it was announced", async () => {
    const res = await processRequest(app, { url: `${origin.url}/files/lt-ultrahdr.jpg`, category: "image", stages: ["metadata"] });
    expect(res.statusCode, res.body).toBe(200);
    expect(RunnerResponse.parse(res.json()).metadata?.image).toMatchObject({ width: 96, height: 64, hdrGainMap: { signalledBy: ["xmp-hdrgm"], version: "1.0" } });
    const plain = await processRequest(app, { url: `${origin.url}/files/lt-truncated-end.jpg`, category: "image", stages: ["metadata"] });
    expect(RunnerResponse.parse(plain.json()).metadata?.image?.hdrGainMap).toBeUndefined();
  });
});

describe("the decoder chain", () => {
  const head = (file: string) => readFileSync(join(dir, file)).subarray(0, 64 * 1024);

  it("finds the JPEG or PNG after leading junk, and not in a file that starts with one", () => {
    expect(embeddedPictureOffset(head("lt-junk-before-soi.jpg"))).toBe(Buffer.byteLength("HTTP/1.1 200 OK\r\nX-Junk: yes\r\n\r\n"));
    expect(embeddedPictureOffset(head("lt-junk-before-sig.png"))).toBe(37);
    expect(embeddedPictureOffset(head("lt-exif-overrun.jpg"))).toBeUndefined();
    expect(embeddedPictureOffset(Buffer.alloc(4096, 0x41))).toBeUndefined();
  });

  it("sharp's formats fall back to the slice after junk, then to ffmpeg's demuxer; ffmpeg's formats to sharp", () => {
    expect(fallbackDecoders(head("lt-junk-before-soi.jpg"), { kind: "sharp" })).toEqual([
      { kind: "slice", offset: Buffer.byteLength("HTTP/1.1 200 OK\r\nX-Junk: yes\r\n\r\n") }, { kind: "ffmpeg", format: "jpeg", inputArgs: ["-f", "jpeg_pipe"] },
    ]);
    expect(fallbackDecoders(head("lt-exif-overrun.jpg"), { kind: "sharp" })).toEqual([{ kind: "ffmpeg", format: "jpeg", inputArgs: ["-f", "jpeg_pipe"] }]);
    expect(fallbackDecoders(head("lt-rgba.psd"), decoderOf(head("lt-rgba.psd")))).toEqual([{ kind: "sharp" }]);
  });

  it("an uncompressed TGA (00 00 02 00 ...) is a TGA, not a cursor; a real ICO stays an ICO", () => {
    expect(decoderOf(head("lt-bottom-left.tga"))).toMatchObject({ kind: "ffmpeg", format: "tga" });
    const ico = Buffer.from([0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0, 0, 0, 0, 0, 22, 0, 0, 0]);
    expect(decoderOf(ico)).toMatchObject({ kind: "ffmpeg", format: "ico" });
  });
});
