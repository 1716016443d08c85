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
import { inflateSync } from "node:zlib";
import { RunnerError } from "../errors.ts";
import { maxThumbnailMaxPx } from "../../../shared/shapes/runner.ts";
import type { DecodedPixels } from "./decoded-pixels.ts";

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

/**
 * TIFF's LZW (MSB-first codes, the code width grows one code early), into at most `limit` bytes. Each code's
 * string is already in the output where it was first written, so it is copied from there (copyWithin), not
 * walked back through the table byte by byte.
 */
export function tiffLzw(input: Uint8Array, limit: number): Uint8Array {
  const out = new Uint8Array(limit);
  const start = new Int32Array(4096);
  const length = new Uint16Array(4096).fill(1, 0, 256);
  const total = input.length * 8;
  let o = 0;
  let bit = 0;
  let width = 9;
  let next = 258;
  let old = -1;
  let oldAt = 0;
  while (bit + width <= total && o < limit) {
    const byte = bit >>> 3;
    const window = (input[byte]! << 16) | ((input[byte + 1] ?? 0) << 8) | (input[byte + 2] ?? 0);
    const code = (window >>> (24 - (bit & 7) - width)) & ((1 << width) - 1);
    bit += width;
    if (code === 257) break;
    if (code === 256) { width = 9; next = 258; old = -1; continue; }
    const at = o;
    if (old < 0) {
      if (code > 255) break;
      out[o++] = code;
    } else {
      // A code not yet defined, other than the one being defined now, ends the strip.
      if (code > next || (code === next && next >= 4096)) break;
      if (code < 256) out[o++] = code;
      else if (code < next) {
        const n = Math.min(length[code]!, limit - o);
        const from = start[code]!;
        // Short strings (most of them) copy faster by hand than through copyWithin.
        if (n < 16) for (let k = 0; k < n; k++) out[o + k] = out[from + k]!;
        else out.copyWithin(o, from, from + n);
        o += length[code]!;
      } else {
        // The code being defined: the previous string plus its own first byte.
        const n = Math.min(length[old]!, limit - o);
        out.copyWithin(o, oldAt, oldAt + n);
        if (o + n < limit) out[o + n] = out[oldAt]!;
        o += length[old]! + 1;
      }
      if (next < 4096) {
        // The new string is the previous one and the first byte of this one: both lie at oldAt.
        start[next] = oldAt;
        length[next] = length[old]! + 1;
        next++;
      }
      if (next >= (1 << width) - 1 && width < 12) width++;
    }
    old = code;
    oldAt = at;
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
export function unpack12BitTiff(file: Uint8Array, tags: Tags, maxPixels: number, maxSide?: number):
  { data: Uint8Array; width: number; height: number; channels: 1 | 2 | 3 | 4 } {
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
  const channels = (samples >= 4 && photometric === 2 ? 4 : photometric === 2 ? 3 : samples >= 2 ? 2 : 1) as 1 | 2 | 3 | 4;
  // A preview needs no more than about twice the largest thumbnail: every step-th row and column.
  const step = maxSide ? Math.max(1, Math.floor(Math.max(width, height) / maxSide)) : 1;
  const outWidth = Math.ceil(width / step);
  const outHeight = Math.ceil(height / step);
  const data = new Uint8Array(outWidth * outHeight * channels);
  const colours = channels === 2 || channels === 4 ? channels - 1 : channels;
  /** The 12-bit sample starting at bit `bit` of a strip (samples are packed most significant bit first). */
  const sampleAt = (strip: Uint8Array, bit: number) => {
    const pair = (strip[bit >> 3]! << 8) | (strip[(bit >> 3) + 1] ?? 0);
    return bit & 7 ? pair & 0xfff : pair >> 4;
  };
  const scale = 255 / 4095;
  for (let p = 0; p < planes; p++) {
    for (let s = 0; s < stripsPerPlane; s++) {
      const firstRow = s * rowsPerStrip;
      const rows = Math.min(rowsPerStrip, height - firstRow);
      // Strips holding no sampled row are not decompressed.
      const sampledRow = Math.ceil(firstRow / step) * step;
      if (sampledRow >= firstRow + rows) continue;
      const index = p * stripsPerPlane + s;
      const at = offsets[index];
      if (at === undefined || at >= file.length) continue;
      const strip = decompress(compression, file.subarray(at, Math.min(file.length, at + (counts[index] ?? file.length))), rows * rowBytes);
      for (let y = sampledRow; y < firstRow + rows; y += step) {
        const rowBit = (y - firstRow) * rowBytes * 8;
        if (rowBit >= strip.length * 8) break;
        const outRow = (y / step) * outWidth;
        for (let x = 0, ox = 0; x < width; x += step, ox++) {
          for (let c = planar === 2 ? p : 0; c < (planar === 2 ? p + 1 : channels); c++) {
            if (c >= channels) break;
            const v = planar === 2 ? sampleAt(strip, rowBit + x * 12) : sampleAt(strip, rowBit + (x * samples + c) * 12);
            const byte = Math.round(v * scale);
            // WhiteIsZero: 0 is white in the colour samples, not in alpha.
            data[(outRow + ox) * channels + c] = photometric === 0 && c < colours ? 255 - byte : byte;
          }
        }
      }
    }
  }
  return { data, width: outWidth, height: outHeight, channels };
}

/**
 * What sharp can read of an old-style-JPEG or 12-bit TIFF: the JPEG stream, or the pixels sampled down for a
 * preview with the TIFF's own size (decoder-thread.ts encodes them).
 */
export function legacyTiffPixels(file: Uint8Array, maxPixels: number): DecodedPixels {
  const tags = readFirstIfd(file);
  if (!tags) throw new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", "no TIFF directory");
  const jpeg = oldJpegStream(file, tags);
  if (jpeg) return { encoded: jpeg };
  const bits = tags.get(258) ?? [1];
  if (bits.every((b) => b === 12)) {
    const raw = unpack12BitTiff(file, tags, maxPixels, maxThumbnailMaxPx);
    const own = { width: first(tags, 256, 0)!, height: first(tags, 257, 0)! };
    return own.width === raw.width && own.height === raw.height ? { raw } : { raw, declared: own };
  }
  throw new RunnerError("UNSUPPORTED_MEDIA", "the image could not be decoded", "neither old-style JPEG nor 12-bit TIFF");
}
