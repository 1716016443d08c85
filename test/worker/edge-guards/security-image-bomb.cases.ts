// Issue 15 finding 3: memory is bounded before decoding. photon inflates PNG iCCP/zTXt/iTXt without a limit
// (a 1 MB iCCP bomb grew workerd to 946 MB), so the edge pipeline strips every chunk photon does not need for
// pixels before photon sees the bytes; the header reader's own ICC inflate is capped (maxIccProfileBytes).
import { PhotonImage } from "@cf-wasm/photon/workerd";
import { afterEach, describe, expect, it, vi } from "vitest";
import { stripImageMetadata } from "../../../worker/image/bomb-guard.ts";
import { processImageAtEdge } from "../../../worker/image/process-image-at-edge.ts";
import { readImageHeader } from "../../../worker/image/header/read-image-header.ts";
import { pngWithBomb } from "../../../testkit/png-bomb.ts";
import { origin } from "../../../testkit/worker/helpers.ts";

const opts = { thumbnailMaxPx: 320, maxDecodePixels: 7_000_000 };

function contains(bytes: Uint8Array, text: string): boolean {
  const needle = new TextEncoder().encode(text);
  outer: for (let i = 0; i + needle.length <= bytes.length; i++) {
    for (let k = 0; k < needle.length; k++) if (bytes[i + k] !== needle[k]) continue outer;
    return true;
  }
  return false;
}

async function fixture(name: string): Promise<Uint8Array> {
  return new Uint8Array(await (await fetch(`${origin}/media/${name}`)).arrayBuffer());
}

afterEach(() => vi.restoreAllMocks());

describe("PNG ancillary-chunk bombs", () => {
  it.each(["iCCP", "zTXt", "iTXt"] as const)("a 1 MB %s chunk inflating to 1 GB never reaches photon", async (type) => {
    const bomb = pngWithBomb(1024 ** 3, type);
    expect(bomb.length).toBeGreaterThan(1_000_000);
    const decode = vi.spyOn(PhotonImage, "new_from_byteslice");
    const started = Date.now();
    const outcome = await processImageAtEdge(bomb, "image/png", opts);
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    if (outcome.ok) expect([outcome.result.width, outcome.result.height, outcome.result.dominantColor]).toEqual([1, 1, "#ff0000"]);
    expect(decode).toHaveBeenCalledTimes(1);
    const given = decode.mock.calls[0]![0] as Uint8Array;
    expect(given.length).toBeLessThan(200);
    expect(contains(given, type)).toBe(false);
    // Inflating 1 GB takes seconds; the whole pipeline on the stripped file does not.
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("the header reader's own ICC inflate stops at its cap", () => {
    const started = Date.now();
    const header = readImageHeader(pngWithBomb(1024 ** 3, "iCCP"));
    expect(header).toMatchObject({ format: "png", width: 1, height: 1 });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("a chunk running past the end of the file is refused, not handed to photon", () => {
    const bomb = pngWithBomb(1024 * 1024);
    expect(stripImageMetadata(bomb.subarray(0, 60), "png")).toMatchObject({ ok: false });
  });
});

describe("WebP and JPEG metadata is stripped too", () => {
  it("WebP: ICCP/EXIF/XMP chunks and their VP8X flags go, the image still decodes", async () => {
    const webp = await fixture("webp-p3.webp");
    expect(contains(webp, "ICCP")).toBe(true);
    const out = stripImageMetadata(webp, "webp");
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.removed).toContain("ICCP");
    expect(contains(out.bytes, "ICCP")).toBe(false);
    expect(out.bytes[20]! & 0x2c).toBe(0); // VP8X flags
    expect(new DataView(out.bytes.buffer).getUint32(4, true)).toBe(out.bytes.length - 8);
    const image = PhotonImage.new_from_byteslice(out.bytes);
    expect(image.get_width()).toBeGreaterThan(0);
    image.free();
  });

  it("JPEG: APP1/APP2 (EXIF, ICC) and comments go, APP0/APP14 stay, the image still decodes", async () => {
    const jpeg = await fixture("jpeg-srgb-icc.jpg");
    expect(contains(jpeg, "ICC_PROFILE")).toBe(true);
    const out = stripImageMetadata(jpeg, "jpeg");
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(contains(out.bytes, "ICC_PROFILE")).toBe(false);
    const image = PhotonImage.new_from_byteslice(out.bytes);
    expect(image.get_width()).toBeGreaterThan(0);
    image.free();
  });

  it("every edge fixture still processes after stripping", async () => {
    for (const name of ["png-alpha.png", "png-p3.png", "png-palette-trns.png", "jpeg-orientation-6.jpg", "webp-alpha.webp", "webp-lossless.webp", "gif-transparent.gif"]) {
      const bytes = await fixture(name);
      const outcome = await processImageAtEdge(bytes, "", opts);
      expect(outcome.ok, `${name}: ${JSON.stringify(outcome)}`).toBe(true);
    }
  });
});
