/// <reference types="vite/client" />
// Edge image pipeline inside workerd, over the committed fixtures (see test/fixtures/images/generate.mjs:
// 96x64, left 70 % main colour (208,48,48), right 30 % other colour (32,80,192) or transparent).
import { PhotonImage } from "@cf-wasm/photon/workerd";
import { decode as decodeBlurhash, isBlurhashValid } from "blurhash";
import { describe, expect, it } from "vitest";
import {
  defaultMaxDecodePixels,
  type EdgeImageOutcome,
  processImageAtEdge,
  readImageHeader,
} from "../../../worker/image/index.ts";

// Vite inlines each fixture as a base64 data URL, which works inside workerd without a file system.
const inlined = import.meta.glob("../../fixtures/images/*.{png,jpg,webp,gif,avif}", {
  query: "?inline",
  import: "default",
  eager: true,
}) as Record<string, string>;

function fixture(name: string): Uint8Array {
  const url = inlined[`../../fixtures/images/${name}`];
  if (!url) throw new Error(`missing fixture ${name}`);
  return Uint8Array.from(atob(url.slice(url.indexOf(",") + 1)), (c) => c.charCodeAt(0));
}

/** A little-endian TIFF with one IFD holding ImageWidth and ImageLength (vite will not inline .tiff files). */
function tiffHeader(width: number, height: number): Uint8Array {
  const b = new DataView(new ArrayBuffer(8 + 2 + 2 * 12 + 4));
  b.setUint16(0, 0x4949); // "II"
  b.setUint16(2, 42, true);
  b.setUint32(4, 8, true);
  b.setUint16(8, 2, true);
  [[0x100, width], [0x101, height]].forEach(([tag, value], i) => {
    const o = 10 + i * 12;
    b.setUint16(o, tag!, true);
    b.setUint16(o + 2, 3, true); // SHORT
    b.setUint32(o + 4, 1, true);
    b.setUint16(o + 8, value!, true);
  });
  return new Uint8Array(b.buffer);
}

const main = [208, 48, 48] as const;
const other = [32, 80, 192] as const;
const mainGray = [110, 110, 110] as const; // luminance of `main` as libvips writes it to grey
const opts = { thumbnailMaxPx: 48, maxDecodePixels: defaultMaxDecodePixels };

const rgbOf = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const distance = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

function expectOk(outcome: EdgeImageOutcome) {
  if (!outcome.ok) throw new Error(`expected ok, got ${outcome.reason}: ${outcome.detail}`);
  return outcome;
}

/** RGBA of pixel (x, y) of an encoded image, decoded with photon. */
function decodePixels(bytes: Uint8Array) {
  const img = PhotonImage.new_from_byteslice(bytes);
  try {
    const w = img.get_width();
    const px = img.get_raw_pixels();
    return { width: w, height: img.get_height(), at: (x: number, y: number) => Array.from(px.subarray((y * w + x) * 4, (y * w + x) * 4 + 4)) };
  } finally {
    img.free();
  }
}

describe("readImageHeader", () => {
  it.each([
    ["png-alpha.png", "png", "srgb", true],
    ["png-opaque.png", "png", "srgb", false],
    ["png-palette-trns.png", "png", "srgb", true],
    ["png-gray.png", "png", "gray", false],
    ["png-p3.png", "png", "display-p3", false],
    ["jpeg-rgb.jpg", "jpeg", "srgb", false],
    ["jpeg-gray.jpg", "jpeg", "gray", false],
    ["jpeg-cmyk.jpg", "jpeg", "cmyk", false],
    ["jpeg-p3.jpg", "jpeg", "display-p3", false],
    ["jpeg-srgb-icc.jpg", "jpeg", "srgb", false],
    ["webp-lossy.webp", "webp", "srgb", false],
    ["webp-alpha.webp", "webp", "srgb", true],
    ["webp-lossless.webp", "webp", "srgb", false],
    ["webp-p3.webp", "webp", "display-p3", false],
    ["gif-transparent.gif", "gif", "srgb", true],
    ["gif-opaque.gif", "gif", "srgb", false],
  ])("reads %s as %s, %s, alpha %s without decoding", (name, format, colorSpace, hasAlpha) => {
    expect(readImageHeader(fixture(name))).toMatchObject({ format, width: 96, height: 64, colorSpace, hasAlpha });
  });

  it("names the embedded ICC profile", () => {
    expect(readImageHeader(fixture("jpeg-p3.jpg"))?.iccProfile).toMatch(/P3/); // libvips names its profile "sP3C"
    expect(readImageHeader(fixture("png-p3.png"))?.iccProfile).toMatch(/P3/);
  });

  it("reports displayed size and the EXIF orientation of a quarter-turned JPEG", () => {
    expect(readImageHeader(fixture("jpeg-orientation-6.jpg"))).toMatchObject({ width: 64, height: 96, orientation: 6 });
  });

  it("gives format, size and colour facts from the header for formats the edge does not decode", () => {
    // Issue 9: AVIF's colour comes from its item properties (colr/auxC), so `fast` has it without the runner.
    const avif = readImageHeader(fixture("avif.avif"));
    expect(avif).toMatchObject({ format: "avif", width: 96, height: 64, colorSpace: "srgb", hasAlpha: false });
    expect(readImageHeader(tiffHeader(96, 64))).toMatchObject({ format: "tiff", width: 96, height: 64 });
  });

  it("returns null for bytes that are no image and for a truncated header", () => {
    expect(readImageHeader(new TextEncoder().encode("hello world, not an image"))).toBeNull();
    expect(readImageHeader(fixture("png-opaque.png").subarray(0, 20))).toBeNull();
    expect(readImageHeader(new Uint8Array())).toBeNull();
  });
});

describe("processImageAtEdge on decodable formats", () => {
  it.each([
    ["png-alpha.png", main, true],
    ["png-opaque.png", main, false],
    ["png-palette-trns.png", main, true],
    ["png-gray.png", mainGray, false],
    ["jpeg-rgb.jpg", main, false],
    ["jpeg-gray.jpg", mainGray, false],
    ["jpeg-p3.jpg", null, false],
    ["webp-lossy.webp", main, false],
    ["webp-alpha.webp", main, true],
    ["webp-lossless.webp", main, false],
    ["gif-transparent.gif", main, true],
    ["gif-opaque.gif", main, false],
  ] as const)("%s: thumbnail, blurhash and dominant colour", async (name, expected, alpha) => {
    const { result, timingsMs } = expectOk(await processImageAtEdge(fixture(name), "image/*", opts));
    expect(result).toMatchObject({ width: 96, height: 64, hasAlpha: alpha });
    expect(result.thumbnail).toMatchObject({ width: 48, height: 32, contentType: "image/webp" });

    const thumb = decodePixels(result.thumbnail.bytes);
    expect([thumb.width, thumb.height]).toEqual([48, 32]);
    expect(readImageHeader(result.thumbnail.bytes)?.format).toBe("webp");
    // The transparent 30 % stays transparent in the thumbnail; opaque images stay opaque.
    expect(thumb.at(44, 16)[3]).toBe(alpha ? 0 : 255);

    expect(isBlurhashValid(result.placeholder).result).toBe(true);
    const blur = decodeBlurhash(result.placeholder, 32, 32);
    expect(blur).toHaveLength(32 * 32 * 4);
    // The left of the placeholder carries the main colour, not a uniform mean.
    if (expected === main) expect(blur[(16 * 32 + 4) * 4]!).toBeGreaterThan(blur[(16 * 32 + 4) * 4 + 2]! + 60);

    expect(result.dominantColor).toMatch(/^#[0-9a-f]{6}$/);
    // Display P3 pixels are not colour-managed at the edge: only the hue family is checked there.
    if (expected) expect(distance(rgbOf(result.dominantColor), expected)).toBeLessThan(16);
    else expect(rgbOf(result.dominantColor)[0]).toBeGreaterThan(150);
    expect(Object.keys(timingsMs)).toEqual(["header", "decode", "resize", "webpEncode", "blurhash", "palette", "total"]);
  });

  it("picks the dominant colour (70 %), not the mean of the image", async () => {
    const { result } = expectOk(await processImageAtEdge(fixture("png-opaque.png"), "image/png", opts));
    const mean = main.map((c, i) => 0.7 * c + 0.3 * other[i]!);
    expect(distance(rgbOf(result.dominantColor), main)).toBeLessThan(4);
    expect(distance(rgbOf(result.dominantColor), mean)).toBeGreaterThan(50);
  });

  it("reports colour space from the headers", async () => {
    const p3 = expectOk(await processImageAtEdge(fixture("jpeg-p3.jpg"), "image/jpeg", opts));
    expect(p3.result.colorSpace).toBe("display-p3");
    const gray = expectOk(await processImageAtEdge(fixture("jpeg-gray.jpg"), "image/jpeg", opts));
    expect(gray.result.colorSpace).toBe("gray");
  });

  it("never upscales an image smaller than thumbnailMaxPx", async () => {
    const { result } = expectOk(await processImageAtEdge(fixture("png-opaque.png"), "image/png", { ...opts, thumbnailMaxPx: 320 }));
    expect(result.thumbnail).toMatchObject({ width: 96, height: 64 });
    expect(decodePixels(result.thumbnail.bytes).width).toBe(96);
  });

  it("turns an EXIF-rotated JPEG upright in the thumbnail", async () => {
    const { result } = expectOk(await processImageAtEdge(fixture("jpeg-orientation-6.jpg"), "image/jpeg", opts));
    expect(result).toMatchObject({ width: 64, height: 96 });
    expect(result.thumbnail).toMatchObject({ width: 32, height: 48 });
    const thumb = decodePixels(result.thumbnail.bytes);
    // Orientation 6 turns the stored scene clockwise: the main colour ends on top, the other at the bottom.
    expect(distance(thumb.at(16, 4), main)).toBeLessThan(20);
    expect(distance(thumb.at(16, 44), other)).toBeLessThan(20);
  });
});

describe("processImageAtEdge refusals", () => {
  it.each([
    ["jpeg-cmyk.jpg", "image/jpeg", "jpeg"],
    ["avif.avif", "image/avif", "avif"],
    ["tiff", "image/tiff", "tiff"],
  ])("hands %s to the media runner as unsupported-format", async (name, mime, format) => {
    const bytes = name === "tiff" ? tiffHeader(96, 64) : fixture(name);
    const outcome = await processImageAtEdge(bytes, mime, opts);
    expect(outcome).toMatchObject({ ok: false, reason: "unsupported-format", header: { format, width: 96, height: 64 } });
  });

  it("treats SVG as unsupported-format", async () => {
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20"></svg>');
    expect(await processImageAtEdge(svg, "image/svg+xml", opts)).toMatchObject({ ok: false, reason: "unsupported-format" });
  });

  it("refuses a PNG whose header claims 20000x20000 before decoding it", async () => {
    const png = fixture("png-opaque.png").slice(0, 33); // signature + IHDR only: no pixel data at all
    const view = new DataView(png.buffer);
    view.setUint32(16, 20000);
    view.setUint32(20, 20000);
    const outcome = await processImageAtEdge(png, "image/png", opts);
    expect(outcome).toMatchObject({ ok: false, reason: "too-large", header: { format: "png", width: 20000, height: 20000 } });
  });

  it("refuses a 4000x3000 header under the default bound, accepts it with a raised bound", async () => {
    const png = fixture("png-opaque.png").slice(0, 33);
    const view = new DataView(png.buffer);
    view.setUint32(16, 4000);
    view.setUint32(20, 3000);
    expect(await processImageAtEdge(png, "image/png", opts)).toMatchObject({ ok: false, reason: "too-large" });
    // With the bound raised the header passes and the missing pixel data fails the decode instead.
    expect(await processImageAtEdge(png, "image/png", { ...opts, maxDecodePixels: 16_000_000 })).toMatchObject({ ok: false, reason: "decode-failed" });
  });

  it("returns decode-failed for corrupt or truncated data and keeps working afterwards", async () => {
    const png = fixture("png-opaque.png");
    const truncated = png.slice(0, png.length - 60);
    const jpeg = fixture("jpeg-rgb.jpg").slice();
    jpeg.fill(0x5a, 200, 400); // scramble inside the entropy-coded scan
    const junk = new Uint8Array(300).map((_, i) => (i * 73 + 11) & 0xff);
    for (const [bytes, mime] of [[truncated, "image/png"], [jpeg, "image/jpeg"], [junk, "image/png"], [new Uint8Array(), "image/webp"]] as const) {
      const outcome = await processImageAtEdge(bytes, mime, opts);
      expect(outcome).toMatchObject({ ok: false, reason: "decode-failed" });
    }
    expect((await processImageAtEdge(png, "image/png", opts)).ok).toBe(true);
  });

  it("returns unsupported-format for unknown bytes with a non-image type", async () => {
    const outcome = await processImageAtEdge(new TextEncoder().encode("%PDF-1.7 not an image"), "application/pdf", opts);
    expect(outcome).toMatchObject({ ok: false, reason: "unsupported-format" });
  });
});
