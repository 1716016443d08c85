/**
 * Two TIFF layouts that neither libvips (as sharp ships it) nor ffmpeg 5.1 decodes:
 * - old-style JPEG (compression 6): libvips's libtiff is built without it and ffmpeg has none. Most such files
 *   carry a whole JFIF stream that JPEGInterchangeFormat (tag 513) points at: that slice is the picture.
 * - 12 bits a sample (scanners, cameras, microscopes): libvips refuses samples that are not whole bytes and
 *   ffmpeg refuses 36-bit RGB. The strips are decompressed here (none, LZW, Deflate, PackBits) and the samples
 *   unpacked to 8 bits for the preview.
 * Only the first directory is read. Every count and offset is checked against the file, the pixel wall is
 * checked before anything is allocated, and each strip's output is capped at the size the header declares.
 */
import { readFile } from "node:fs/promises";
import { inflateSync } from "node:zlib";
import sharp from "sharp";
import { RunnerError } from "../errors.ts";

/** A directory with more entries than this is not a picture's. */
const maxEntries = 1024;
/** Strips a 12-bit picture may have (one a row of the tallest picture the wall lets through is far below). */
const maxStrips = 1 << 20;

type Tags = Map<number, number[]>;

const typeSizes: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 6: 1, 7: 1, 8: 2, 9: 4, 16: 8 };

/** The integer values of the first directory's tags (types BYTE, SHORT, LONG, LONG8 and their signed forms). */
export function readFirstIfd(file: Uint8Array): Tags | undefined {
  if (file.length < 8) return undefined;
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const order = String.fromCharCode(file[0]!, file[1]!);
  if (order !== "II" && order !== "MM") return undefined;
  const le = order === "II";
  if (view.getUint16(2, le) !== 42) return undefined;
  const ifd = view.getUint32(4, le);
  if (ifd + 2 > file.length) return undefined;
  const count = Math.min(view.getUint16(ifd, le), maxEntries);
  const tags: Tags = new Map();
  for (let i = 0; i < count; i++) {
    const at = ifd + 2 + i * 12;
    if (at + 12 > file.length) break;
    const tag = view.getUint16(at, le);
    const type = view.getUint16(at + 2, le);
    const n = view.getUint32(at + 4, le);
    const size = typeSizes[type];
    if (!size || size > 4 || n > maxStrips) continue;
    const start = size * n <= 4 ? at + 8 : view.getUint32(at + 8, le);
    if (start + size * n > file.length) continue;
    const values: number[] = [];
    for (let k = 0; k < n; k++) {
      const o = start + k * size;
      values.push(size === 1 ? file[o]! : size === 2 ? view.getUint16(o, le) : view.getUint32(o, le));
    }
    tags.set(tag, values);
  }
  return tags;
}

const first = (tags: Tags, tag: number, fallback?: number) => tags.get(tag)?.[0] ?? fallback;

/** The JFIF stream an old-style-JPEG TIFF names, when there is one. */
export function oldJpegStream(file: Uint8Array, tags: Tags): Uint8Array | undefined {
  if (first(tags, 259) !== 6) return undefined;
  const offset = first(tags, 513);
  if (offset === undefined || offset + 4 > file.length || file[offset] !== 0xff || file[offset + 1] !== 0xd8) return undefined;
  const length = first(tags, 514);
  return file.subarray(offset, length ? Math.min(file.length, offset + length) : file.length);
}

/** TIFF's LZW (MSB-first codes, code width grows one code early), into at most `limit` bytes. */
export function tiffLzw(input: Uint8Array, limit: number): Uint8Array {
  const out = new Uint8Array(limit);
  const prefix = new Int16Array(4096);
  const suffix = new Uint8Array(4096);
  const firstOf = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let i = 0; i < 256; i++) { suffix[i] = i; firstOf[i] = i; length[i] = 1; prefix[i] = -1; }
  let o = 0;
  let bit = 0;
  let width = 9;
  let next = 258;
  let old = -1;
  const total = input.length * 8;
  /** Writes the string of `code` at `o`, clipped at the limit. */
  const emit = (code: number) => {
    const n = length[code]!;
    for (let k = n - 1, c = code; k >= 0; k--, c = prefix[c]!) if (o + k < limit) out[o + k] = suffix[c]!;
    o += n;
  };
  while (bit + width <= total && o < limit) {
    let code = 0;
    for (let k = 0; k < width; k++, bit++) code = (code << 1) | ((input[bit >> 3]! >> (7 - (bit & 7))) & 1);
    if (code === 257) break;
    if (code === 256) { width = 9; next = 258; old = -1; continue; }
    if (old < 0) {
      if (code > 255) break;
      emit(code);
      old = code;
      continue;
    }
    // A code not yet defined, other than the one being defined now, ends the strip.
    if (code > next || (code === next && next >= 4096)) break;
    if (next < 4096) {
      prefix[next] = old;
      suffix[next] = code < next ? firstOf[code]! : firstOf[old]!;
      firstOf[next] = firstOf[old]!;
      length[next] = length[old]! + 1;
      next++;
    }
    emit(code);
    if (next >= (1 << width) - 1 && width < 12) width++;
    old = code;
  }
  return out.subarray(0, Math.min(o, limit));
}

function packBits(input: Uint8Array, limit: number): Uint8Array {
  const out = new Uint8Array(limit);
  let o = 0;
  for (let i = 0; i < input.length && o < limit;) {
    const n = (input[i++]! << 24) >> 24;
    if (n >= 0) {
      const run = Math.min(n + 1, input.length - i, limit - o);
      out.set(input.subarray(i, i + run), o);
      o += run;
      i += n + 1;
    } else if (n !== -128 && i < input.length) {
      const run = Math.min(1 - n, limit - o);
      out.fill(input[i++]!, o, o + run);
      o += run;
    }
  }
  return out.subarray(0, o);
}

function decompress(compression: number, strip: Uint8Array, limit: number): Uint8Array {
  if (compression === 1) return strip.subarray(0, limit);
  if (compression === 5) return tiffLzw(strip, limit);
  if (compression === 32773) return packBits(strip, limit);
  if (compression === 8 || compression === 32946) {
    try {
      return inflateSync(strip, { maxOutputLength: limit, finishFlush: 2 /* Z_SYNC_FLUSH: a cut strip gives what it holds */ });
    } catch {
      return new Uint8Array(0);
    }
  }
  throw new RunnerError("UNSUPPORTED_MEDIA", "the image could not be decoded", `12-bit TIFF with compression ${compression}`);
}

/** 8-bit pixels of a 12-bit TIFF's first picture (grey, grey + alpha, RGB or RGBA). */
export function unpack12BitTiff(file: Uint8Array, tags: Tags, maxPixels: number): { data: Uint8Array; width: number; height: number; channels: 1 | 2 | 3 | 4 } {
  const width = first(tags, 256, 0)!;
  const height = first(tags, 257, 0)!;
  const samples = first(tags, 277, 1)!;
  const photometric = first(tags, 262, 1)!;
  const planar = first(tags, 284, 1)!;
  const compression = first(tags, 259, 1)!;
  if (width === 0 || height === 0 || samples < 1 || samples > 8) throw new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", "bad TIFF size");
  if (width * height > maxPixels) throw new RunnerError("IMAGE_TOO_LARGE", `the image is ${width}x${height}, over the limit of ${maxPixels} pixels`);
  if (tags.has(322) || first(tags, 317, 1) !== 1 || ![0, 1, 2].includes(photometric)) {
    throw new RunnerError("UNSUPPORTED_MEDIA", "the image could not be decoded", "12-bit TIFF with tiles, a predictor or this colour model");
  }
  const offsets = tags.get(273) ?? [];
  const counts = tags.get(279) ?? [];
  const rowsPerStrip = Math.min(first(tags, 278, height)!, height);
  const planes = planar === 2 ? samples : 1;
  const perPlaneRow = planar === 2 ? 1 : samples;
  const rowBytes = Math.ceil((width * perPlaneRow * 12) / 8);
  const stripsPerPlane = Math.ceil(height / rowsPerStrip);
  const raw = Array.from({ length: planes }, () => new Uint8Array(rowBytes * height));
  for (let p = 0; p < planes; p++) {
    for (let s = 0; s < stripsPerPlane; s++) {
      const index = p * stripsPerPlane + s;
      const at = offsets[index];
      if (at === undefined || at >= file.length) continue;
      const rows = Math.min(rowsPerStrip, height - s * rowsPerStrip);
      const bytes = decompress(compression, file.subarray(at, Math.min(file.length, at + (counts[index] ?? file.length))), rows * rowBytes);
      raw[p]!.set(bytes.subarray(0, rows * rowBytes), s * rowsPerStrip * rowBytes);
    }
  }
  const channels = (samples >= 4 && photometric === 2 ? 4 : photometric === 2 ? 3 : samples >= 2 ? 2 : 1) as 1 | 2 | 3 | 4;
  const data = new Uint8Array(width * height * channels);
  /** The 12-bit sample starting at bit `bit` of a plane (samples are packed most significant bit first). */
  const sampleAt = (plane: Uint8Array, bit: number) => {
    const pair = (plane[bit >> 3]! << 8) | (plane[(bit >> 3) + 1] ?? 0);
    return bit & 7 ? pair & 0xfff : pair >> 4;
  };
  const colours = channels === 2 || channels === 4 ? channels - 1 : channels;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < channels; c++) {
        const v = planar === 2 ? sampleAt(raw[c]!, y * rowBytes * 8 + x * 12) : sampleAt(raw[0]!, y * rowBytes * 8 + (x * samples + c) * 12);
        const byte = Math.round((v * 255) / 4095);
        // WhiteIsZero: 0 is white in the colour samples, not in alpha.
        data[(y * width + x) * channels + c] = photometric === 0 && c < colours ? 255 - byte : byte;
      }
    }
  }
  return { data, width, height, channels };
}

/** The picture sharp can read for an old-style-JPEG or 12-bit TIFF: JPEG or PNG bytes. */
export async function legacyTiffToImage(path: string, maxPixels: number): Promise<Buffer> {
  const file = await readFile(path);
  const tags = readFirstIfd(file);
  if (!tags) throw new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", "no TIFF directory");
  const jpeg = oldJpegStream(file, tags);
  if (jpeg) return Buffer.from(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength);
  const bits = tags.get(258) ?? [1];
  if (bits.every((b) => b === 12)) {
    const { data, width, height, channels } = unpack12BitTiff(file, tags, maxPixels);
    return sharp(data, { raw: { width, height, channels } }).png({ compressionLevel: 1 }).toBuffer();
  }
  throw new RunnerError("UNSUPPORTED_MEDIA", "the image could not be decoded", "neither old-style JPEG nor 12-bit TIFF");
}
