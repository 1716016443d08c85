/**
 * Two TIFF layouts that neither libvips (as sharp ships it) nor ffmpeg 5.1 decodes:
 * - old-style JPEG (compression 6): libvips's libtiff is built without it, and ffmpeg's TIFF decoder turns it
 *   into a flat green frame. The JPEG is the JFIF stream JPEGInterchangeFormat (tag 513) points at, or one
 *   rebuilt from the tables and strips the directory names (oldJpegStream); sharp decodes it.
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

/** A JPEG marker segment: FF, marker, big-endian length (payload + 2), payload. */
function segment(marker: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + payload.length);
  out.set([0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 0xff]);
  out.set(payload, 4);
  return out;
}

const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
};

/**
 * The JPEG an old-style-JPEG TIFF holds: the JFIF stream JPEGInterchangeFormat names when it is whole (it has
 * a scan), else one rebuilt as libtiff does from the tables the directory points at (JPEGQTables,
 * JPEGDCTables, JPEGACTables: one of each per component), a baseline frame header from the picture's size and
 * YCbCr subsampling, and the strips' entropy-coded data, strip after strip with a restart marker between them
 * (each strip starts its DC prediction afresh, which is what a restart does).
 */
export function oldJpegStream(file: Uint8Array, tags: Tags): Uint8Array | undefined {
  if (first(tags, 259) !== 6) return undefined;
  const offset = first(tags, 513);
  if (offset !== undefined && offset + 4 <= file.length && file[offset] === 0xff && file[offset + 1] === 0xd8) {
    const length = first(tags, 514);
    const stream = file.subarray(offset, length ? Math.min(file.length, offset + length) : file.length);
    if (hasScan(stream)) return stream;
  }
  return rebuiltOldJpeg(file, tags);
}

/** Whether a JPEG stream has a start-of-scan marker (a walk over its marker segments). */
function hasScan(stream: Uint8Array): boolean {
  for (let o = 2; o + 4 <= stream.length;) {
    if (stream[o] !== 0xff) return false;
    const marker = stream[o + 1]!;
    if (marker === 0xda) return true;
    if (marker === 0xd9) return false;
    o += 2 + ((stream[o + 2]! << 8) | stream[o + 3]!);
  }
  return false;
}

function rebuiltOldJpeg(file: Uint8Array, tags: Tags): Uint8Array | undefined {
  const width = first(tags, 256, 0)!;
  const height = first(tags, 257, 0)!;
  const components = first(tags, 277, 1)!;
  const q = tags.get(519);
  const dc = tags.get(520);
  const ac = tags.get(521);
  if (first(tags, 512, 1) !== 1 || !q || !dc || !ac || width === 0 || height === 0 || width > 65535 || height > 65535) return undefined;
  if ((components !== 1 && components !== 3) || q.length < components || dc.length < components || ac.length < components) return undefined;
  const [h, v] = components === 3 && first(tags, 262) === 6 ? [tags.get(530)?.[0] ?? 2, tags.get(530)?.[1] ?? 2] : [1, 1];
  if (![1, 2, 4].includes(h) || ![1, 2, 4].includes(v)) return undefined;
  const parts: Uint8Array[] = [new Uint8Array([0xff, 0xd8])];
  // RGB stored as JPEG: an Adobe segment saying "no colour transform", or a decoder would take it for YCbCr.
  if (first(tags, 262) === 2) parts.push(segment(0xee, new Uint8Array([0x41, 0x64, 0x6f, 0x62, 0x65, 0, 100, 0, 0, 0, 0, 0])));
  for (let i = 0; i < components; i++) {
    const table = q[i]!;
    if (table + 64 > file.length) return undefined;
    parts.push(segment(0xdb, concat([new Uint8Array([i]), file.subarray(table, table + 64)])));
    for (const [cls, offsets] of [[0, dc], [1, ac]] as const) {
      const at = offsets[i]!;
      if (at + 16 > file.length) return undefined;
      const values = file.subarray(at, at + 16).reduce((n, c) => n + c, 0);
      if (values > 256 || at + 16 + values > file.length) return undefined;
      parts.push(segment(0xc4, concat([new Uint8Array([(cls << 4) | i]), file.subarray(at, at + 16 + values)])));
    }
  }
  const strips = tags.get(273) ?? [];
  const counts = tags.get(279) ?? [];
  const rowsPerStrip = Math.min(first(tags, 278, height)!, height);
  const mcuRows = 8 * v;
  const restart = first(tags, 515, 0)!;
  // Strips joined by restart markers need whole MCU rows per strip and no restart interval of the file's own.
  const joined = strips.length > 1 && restart === 0 && rowsPerStrip % mcuRows === 0;
  const interval = joined ? Math.ceil(width / (8 * h)) * (rowsPerStrip / mcuRows) : restart;
  if (interval > 0) parts.push(segment(0xdd, new Uint8Array([interval >> 8, interval & 0xff])));
  const frame = [8, height >> 8, height & 0xff, width >> 8, width & 0xff, components];
  for (let i = 0; i < components; i++) frame.push(i + 1, i === 0 ? (h << 4) | v : 0x11, i);
  parts.push(segment(0xc0, new Uint8Array(frame)));
  const scan = [components];
  for (let i = 0; i < components; i++) scan.push(i + 1, (i << 4) | i);
  scan.push(0, 63, 0);
  parts.push(segment(0xda, new Uint8Array(scan)));
  const used = joined ? strips.length : 1;
  for (let s = 0; s < used; s++) {
    const at = strips[s]!;
    if (at >= file.length) break;
    if (s > 0) parts.push(new Uint8Array([0xff, 0xd0 + ((s - 1) & 7)]));
    parts.push(file.subarray(at, Math.min(file.length, at + (counts[s] ?? file.length))));
  }
  parts.push(new Uint8Array([0xff, 0xd9]));
  return concat(parts);
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
