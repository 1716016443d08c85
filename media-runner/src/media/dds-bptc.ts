/**
 * DDS textures in BC6H or BC7 blocks (a DX10 extended header with DXGI formats 94-99), which ffmpeg's DDS
 * decoder refuses ("Unsupported DXGI format"). The first surface (mip level 0 of the first array element) is
 * decoded block by block (bptc-blocks.ts) into a PNG that sharp then reads like any other converted picture.
 * The pixel wall is checked on the header's size before anything is allocated; blocks a cut file lacks stay
 * black, so a truncated texture shows what it holds.
 */
import { readFile } from "node:fs/promises";
import sharp from "sharp";
import { RunnerError } from "../errors.ts";
import { decodeBc6hBlock, decodeBc7Block } from "./bptc-blocks.ts";

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

/** RGBA (BC7) or RGB (BC6H) pixels of the first surface. */
export function decodeBptcSurface(file: Uint8Array, texture: BptcTexture, maxPixels: number): { data: Uint8Array; channels: 3 | 4 } {
  const { width, height, format } = texture;
  if (width * height > maxPixels) {
    throw new RunnerError("IMAGE_TOO_LARGE", `the image is ${width}x${height}, over the limit of ${maxPixels} pixels`);
  }
  const channels = format === "bc7" ? 4 : 3;
  const data = new Uint8Array(width * height * channels);
  const tile = new Uint8Array(16 * channels);
  const across = Math.ceil(width / 4);
  const blocks = across * Math.ceil(height / 4);
  const held = Math.min(blocks, Math.floor((file.length - dx10DataOffset) / 16));
  for (let n = 0; n < held; n++) {
    const block = file.subarray(dx10DataOffset + n * 16, dx10DataOffset + n * 16 + 16);
    if (format === "bc7") decodeBc7Block(block, tile);
    else decodeBc6hBlock(block, format === "bc6h-signed", tile);
    const bx = (n % across) * 4;
    const by = Math.floor(n / across) * 4;
    for (let y = 0; y < 4 && by + y < height; y++) {
      const columns = Math.min(4, width - bx);
      data.set(tile.subarray(y * 4 * channels, (y * 4 + columns) * channels), ((by + y) * width + bx) * channels);
    }
  }
  return { data, channels };
}

/** The texture as PNG bytes for sharp. */
export async function bptcDdsToPng(path: string, maxPixels: number): Promise<Buffer> {
  const file = await readFile(path);
  const texture = bptcTextureOf(file);
  if (!texture) throw new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", "not a BC6H or BC7 DDS texture");
  const { data, channels } = decodeBptcSurface(file, texture, maxPixels);
  return sharp(data, { raw: { width: texture.width, height: texture.height, channels } }).png({ compressionLevel: 1 }).toBuffer();
}
