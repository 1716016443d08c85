/**
 * Visual previews from one decoded picture: a WebP thumbnail, a blurhash placeholder and the colour
 * palette. The source is decoded once, straight to thumbnail size; placeholder and colour are computed from
 * that small raster, so their cost does not depend on the source resolution.
 */
import { encode as encodeBlurhash } from "blurhash";
import sharp, { type SharpOptions } from "sharp";
import { type Palette, quantizePalette } from "../../../shared/media/palette.ts";
import type { RunnerThumbnail } from "../../../shared/shapes/runner.ts";

export interface Raster {
  data: Buffer;
  width: number;
  height: number;
  /** Whether the source had an alpha channel (the raster always has four channels). */
  hasAlpha: boolean;
}

/** Blurhash input size: the encoder's cost grows with pixels, and 32 px holds all a 4x3 hash can show. */
const placeholderPx = 32;
/** Palette input size: enough pixels for stable clusters, few enough for a quick quantiser (same as the edge). */
const palettePx = 64;
const webpQuality = 78;

/**
 * Decodes input (an image file path or encoded bytes) straight to an RGBA raster that fits maxPx. The resize
 * is the first operation, so JPEG and WebP sources shrink on load (image-decode.ts decides when that is needed).
 */
export async function decodeToRaster(input: string | Buffer, maxPx: number, limits: number | Pick<SharpOptions, "limitInputPixels" | "failOn">): Promise<Raster> {
  const options = typeof limits === "number" ? { limitInputPixels: limits } : limits;
  const image = sharp(input, { ...options, sequentialRead: true, animated: false });
  const { hasAlpha = false } = await image.metadata();
  const { data, info } = await image
    .autoOrient()
    .resize(maxPx, maxPx, { fit: "inside", withoutEnlargement: true })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, hasAlpha };
}

function fromRaster(raster: Raster) {
  return sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: 4 } });
}

export async function thumbnailOf(raster: Raster): Promise<RunnerThumbnail> {
  const pipeline = raster.hasAlpha ? fromRaster(raster) : fromRaster(raster).removeAlpha();
  const bytes = await pipeline.webp({ quality: webpQuality }).toBuffer();
  return { base64: bytes.toString("base64"), width: raster.width, height: raster.height, contentType: "image/webp" };
}

async function downscale(raster: Raster, px: number) {
  return fromRaster(raster)
    .resize(px, px, { fit: "inside" })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
}

export async function placeholderOf(raster: Raster): Promise<{ type: "blurhash"; value: string }> {
  const { data, info } = await downscale(raster, placeholderPx);
  // 4 components along the long side, 3 along the short one, as the blurhash authors suggest.
  const [x, y] = info.width >= info.height ? [4, 3] : [3, 4];
  const value = encodeBlurhash(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height, x, y);
  return { type: "blurhash", value };
}

export async function paletteOf(raster: Raster): Promise<Palette> {
  const { data, info } = await downscale(raster, palettePx);
  return quantizePalette(data, info.width, info.height);
}

/** Share of pixels that must be near-black for a frame to count as black (fade-ins, slates). */
const blackPixelShare = 0.98;
/** Luma (0-255) under which a pixel counts as near-black. */
const blackLumaMax = 24;

export function isMostlyBlack(raster: Raster): boolean {
  const pixels = raster.width * raster.height;
  let dark = 0;
  for (let i = 0; i < pixels; i++) {
    const o = i * 4;
    const luma = 0.2126 * raster.data[o]! + 0.7152 * raster.data[o + 1]! + 0.0722 * raster.data[o + 2]!;
    if (luma <= blackLumaMax) dark++;
  }
  return pixels > 0 && dark / pixels >= blackPixelShare;
}
