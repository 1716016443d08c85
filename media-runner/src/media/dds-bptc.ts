/**
 * DDS textures in BC6H or BC7 blocks (a DX10 extended header with DXGI formats 94-99), which ffmpeg's DDS
 * decoder refuses ("Unsupported DXGI format"). The first surface (mip level 0 of the first array element) is
 * decoded block by block (bptc-blocks.ts) into a PNG that sharp then reads like any other converted picture.
 * The pixel wall is checked on the header's size before anything is allocated; blocks a cut file lacks stay
 * black, so a truncated texture shows what it holds.
 */
import { RunnerError } from "../errors.ts";
import { decodeBc6hBlock, decodeBc7Block } from "./bptc-blocks.ts";
import { maxThumbnailMaxPx } from "../../../shared/shapes/runner.ts";
import type { DecodedPixels } from "./decoded-pixels.ts";

/** "DDS ", the 124-byte header, the 20-byte DX10 header. */
const dx10DataOffset = 4 + 124 + 20;

export type BptcFormat = "bc6h-unsigned" | "bc6h-signed" | "bc7";

export interface BptcTexture {
  format: BptcFormat;
  width: number;
  height: number;
}

/** The texture's block format and size when the head is a DX10 DDS in BC6H or BC7; undefined otherwise. */
export function bptcTextureOf(head: Uint8Array): BptcTexture | undefined {
  if (head.length < dx10DataOffset) return undefined;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getUint32(0, false) !== 0x44445320 || view.getUint32(4, true) !== 124) return undefined;
  if (view.getUint32(84, false) !== 0x44583130) return undefined; // pixel format FourCC "DX10"
  const dxgi = view.getUint32(128, true);
  const format: BptcFormat | undefined = dxgi === 94 || dxgi === 95 ? "bc6h-unsigned" : dxgi === 96 ? "bc6h-signed"
    : dxgi >= 97 && dxgi <= 99 ? "bc7" : undefined;
  const height = view.getUint32(12, true);
  const width = view.getUint32(16, true);
  if (!format || width === 0 || height === 0) return undefined;
  return { format, width, height };
}

/**
 * RGBA (BC7) or RGB (BC6H) pixels of the first surface. With `maxSide`, a texture more than twice that size on
 * its long side is sampled a block at a time (every step-th block in each direction, step = long side / maxSide):
 * a preview needs no more, and the blocks decoded stay under (2 * maxSide / 4)^2 whatever the texture's size.
 */
export function decodeBptcSurface(file: Uint8Array, texture: BptcTexture, maxPixels: number, maxSide?: number):
  { data: Uint8Array; channels: 3 | 4; width: number; height: number } {
  const { width, height, format } = texture;
  if (width * height > maxPixels) {
    throw new RunnerError("IMAGE_TOO_LARGE", `the image is ${width}x${height}, over the limit of ${maxPixels} pixels`);
  }
  const channels = format === "bc7" ? 4 : 3;
  const across = Math.ceil(width / 4);
  const rows = Math.ceil(height / 4);
  const step = maxSide ? Math.max(1, Math.floor(Math.max(width, height) / maxSide)) : 1;
  const outAcross = Math.ceil(across / step);
  const outWidth = step === 1 ? width : outAcross * 4;
  const outHeight = step === 1 ? height : Math.ceil(rows / step) * 4;
  const data = new Uint8Array(outWidth * outHeight * channels);
  const tile = new Uint8Array(16 * channels);
  const held = Math.floor((file.length - dx10DataOffset) / 16);
  for (let by = 0; by * 4 < outHeight; by++) {
    for (let bx = 0; bx < outAcross; bx++) {
      const n = by * step * across + bx * step;
      if (n >= held) continue;
      const block = file.subarray(dx10DataOffset + n * 16, dx10DataOffset + n * 16 + 16);
      if (format === "bc7") decodeBc7Block(block, tile);
      else decodeBc6hBlock(block, format === "bc6h-signed", tile);
      const columns = Math.min(4, outWidth - bx * 4);
      for (let y = 0; y < 4 && by * 4 + y < outHeight; y++) {
        data.set(tile.subarray(y * 4 * channels, (y * 4 + columns) * channels), ((by * 4 + y) * outWidth + bx * 4) * channels);
      }
    }
  }
  return { data, channels, width: outWidth, height: outHeight };
}

/** The texture's pixels, sampled down for a preview; `declared` is its own size when sampled (decoder-thread.ts encodes them). */
export function bptcDdsPixels(file: Uint8Array, maxPixels: number): DecodedPixels {
  const texture = bptcTextureOf(file);
  if (!texture) throw new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", "not a BC6H or BC7 DDS texture");
  const raw = decodeBptcSurface(file, texture, maxPixels, maxThumbnailMaxPx);
  return raw.width === texture.width && raw.height === texture.height ? { raw } : { raw, declared: { width: texture.width, height: texture.height } };
}
