/**
 * Removes metadata from an image before photon decodes it. photon's decoders inflate
 * PNG iCCP/zTXt/iTXt chunks without a size limit: a 1 MB chunk inflating to 1 GB grew workerd to 946 MB,
 * and about 100 KB kills a 128 MB isolate. Only the pixel bound is checked before decoding, so everything
 * photon does not need for pixels is dropped here. Colour space and orientation were already read, with
 * bounded inflation, by the header reader (worker/image/header).
 *
 * The rewrite walks the container structure once; anything malformed is returned as "unreadable" so the
 * caller refuses it rather than handing photon bytes we could not check.
 */
import { concatBytes } from "../../shared/bytes/concat-bytes.ts";

export type GuardOutcome = { ok: true; bytes: Uint8Array; removed: string[] } | { ok: false; detail: string };

/** PNG chunks photon needs for a still image: everything else (text, ICC, EXIF, APNG frames) is dropped. */
const pngKeptChunks = new Set(["IHDR", "PLTE", "tRNS", "IDAT", "IEND"]);
/** WebP chunks kept: the bitstreams, alpha and animation structure; ICCP, EXIF and XMP are dropped. */
const webpKeptChunks = new Set(["VP8 ", "VP8L", "VP8X", "ALPH", "ANIM", "ANMF"]);
/** VP8X flag bits announcing ICC (0x20), EXIF (0x08) and XMP (0x04) chunks, cleared with the chunks. */
const vp8xMetadataFlags = 0x20 | 0x08 | 0x04;
/**
 * JPEG APPn markers kept: APP0 (JFIF) and APP14 (Adobe, says how to read the colour components). APP1
 * (EXIF/XMP), APP2 (ICC) and the rest, plus comments, are dropped.
 */
const jpegKeptAppMarkers = new Set([0xe0, 0xee]);

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function stripImageMetadata(bytes: Uint8Array, format: string): GuardOutcome {
  if (format === "png") return stripPng(bytes);
  if (format === "webp") return stripWebp(bytes);
  if (format === "jpeg") return stripJpeg(bytes);
  // GIF extensions are stored uncompressed (no amplification); other formats never reach photon.
  return { ok: true, bytes, removed: [] };
}

function ascii(b: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...b.subarray(at, at + length));
}

function u32be(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

function u32le(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}

function stripPng(b: Uint8Array): GuardOutcome {
  if (b.length < 8 || pngSignature.some((v, i) => b[i] !== v)) return { ok: false, detail: "not a PNG signature" };
  const parts: Uint8Array[] = [b.subarray(0, 8)];
  const removed: string[] = [];
  let o = 8;
  while (o + 12 <= b.length) {
    const length = u32be(b, o);
    const end = o + 12 + length;
    if (end > b.length) return { ok: false, detail: "PNG chunk runs past the end of the file" };
    const type = ascii(b, o + 4, 4);
    if (pngKeptChunks.has(type)) parts.push(b.subarray(o, end));
    else removed.push(type);
    o = end;
    if (type === "IEND") break;
  }
  return { ok: true, bytes: concatBytes(parts), removed };
}

function stripWebp(b: Uint8Array): GuardOutcome {
  if (b.length < 12 || ascii(b, 0, 4) !== "RIFF" || ascii(b, 8, 4) !== "WEBP") return { ok: false, detail: "not a RIFF WEBP file" };
  const parts: Uint8Array[] = [];
  const removed: string[] = [];
  let o = 12;
  while (o + 8 <= b.length) {
    const type = ascii(b, o, 4);
    const size = u32le(b, o + 4);
    const end = o + 8 + size + (size & 1); // chunks are padded to an even size
    if (o + 8 + size > b.length) return { ok: false, detail: "WebP chunk runs past the end of the file" };
    if (webpKeptChunks.has(type)) {
      const chunk = b.slice(o, Math.min(end, b.length));
      if (type === "VP8X" && chunk.length > 8) chunk[8] = chunk[8]! & ~vp8xMetadataFlags;
      parts.push(chunk);
    } else {
      removed.push(type);
    }
    o = end;
  }
  const body = concatBytes(parts);
  const header = new Uint8Array(12);
  header.set(b.subarray(0, 12));
  new DataView(header.buffer).setUint32(4, body.length + 4, true);
  return { ok: true, bytes: concatBytes([header, body]), removed };
}

function stripJpeg(b: Uint8Array): GuardOutcome {
  if (b[0] !== 0xff || b[1] !== 0xd8) return { ok: false, detail: "not a JPEG SOI marker" };
  const parts: Uint8Array[] = [b.subarray(0, 2)];
  const removed: string[] = [];
  let o = 2;
  while (o + 4 <= b.length) {
    if (b[o] !== 0xff) return { ok: false, detail: "JPEG marker expected" };
    const marker = b[o + 1]!;
    if (marker === 0xff) {
      o++; // fill byte
      continue;
    }
    if (marker === 0xda /* SOS */) {
      parts.push(b.subarray(o)); // entropy-coded data and every later marker go through unchanged
      return { ok: true, bytes: concatBytes(parts), removed };
    }
    const length = (b[o + 2]! << 8) | b[o + 3]!;
    const end = o + 2 + length;
    if (length < 2 || end > b.length) return { ok: false, detail: "JPEG segment runs past the end of the file" };
    const isApp = marker >= 0xe0 && marker <= 0xef;
    if ((isApp && !jpegKeptAppMarkers.has(marker)) || marker === 0xfe /* COM */) removed.push(`0x${marker.toString(16)}`);
    else parts.push(b.subarray(o, end));
    o = end;
  }
  return { ok: false, detail: "JPEG without image data" };
}
