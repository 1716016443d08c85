import type { RangeByteSource } from "../../bytes/byte-source.ts";
import { maxIccProfileBytes } from "../../config/limits.ts";
import { ascii, u16be, u32be, u32le } from "../../bytes/read-bytes.ts";
import { concatBytes } from "../../../shared/bytes/concat-bytes.ts";
import { readImageHeader, type ImageHeaderInfo } from "./read-image-header.ts";
import { isTiff, tiffHeaderBytes } from "./tiff-header.ts";
import { jpegGainMap } from "../../../shared/media/gain-map.ts";

/**
 * An image's header facts when the probe's head may end before the header does (a JPEG whose SOF follows a
 * large EXIF or ICC block, a PNG with big text chunks before its iCCP, an animated WebP's frame list). The
 * container is walked through the byte source: each segment or chunk header is read, the ones the header
 * readers use are read whole, the rest are skipped without being fetched. The kept pieces are put back
 * together as a smaller file of the same format, so the one set of header readers (read-image-header.ts)
 * reads it as it reads a whole file.
 */
export async function readImageHeaderFrom(source: RangeByteSource, head: Uint8Array): Promise<ImageHeaderInfo | null> {
  const walk = walkerFor(head);
  const bytes = walk ? await walk(source, requestGuard(source)).catch(() => head) : head;
  // A walk that stopped at a damaged segment kept no frame header: the head itself may still be read past it.
  const info = readImageHeader(bytes) ?? (bytes !== head ? readImageHeader(head) : null);
  // The walk keeps no XMP: a gain map's announcement is read from the head, where the first segments are.
  const gainMap = info?.format === "jpeg" && !info.hdrGainMap ? jpegGainMap(head) : undefined;
  if (info && gainMap) info.hdrGainMap = gainMap;
  if (complete(info)) return info;
  // Small files are read whole (no more than a 64 KiB head used to pull): a GIF's frames, formats not walked.
  const size = source.size;
  if (size === undefined || size <= head.byteLength || size > maxWholeReadBytes) return info;
  const whole = await source.read(0, size).catch(() => undefined);
  return whole ? readImageHeader(whole) : info;
}

/** Files up to this size are read whole when walking their header is not enough. */
const maxWholeReadBytes = 64 * 1024;
/** Segments or chunks walked before giving up (real files have a few dozen; an animation, a frame each). */
const maxPieces = 4096;
/** Range requests one walk may make; past it the walk is abandoned (its facts would be partial). */
const maxWalkRequests = 16;
/** EXIF kept from an APP1 segment: IFD0 (where the orientation is) starts at its 8th byte. */
const exifKeepBytes = 4 * 1024;
/** Any other kept segment or chunk larger than this is left out (headers are small; ICC is bounded apart). */
const maxKeptPieceBytes = 256 * 1024;

function complete(info: ImageHeaderInfo | null): boolean {
  return info !== null && info.colorSpace !== undefined && info.animation !== undefined;
}

type Walker = (source: RangeByteSource, guard: () => void) => Promise<Uint8Array>;

/** Throws once the walk has made more than maxWalkRequests requests (checked at each piece). */
function requestGuard(source: RangeByteSource): () => void {
  const before = source.extraRequests;
  return () => {
    if (source.extraRequests - before > maxWalkRequests) throw new Error("image header walk: too many requests");
  };
}

function walkerFor(head: Uint8Array): Walker | undefined {
  if (head[0] === 0xff && head[1] === 0xd8) return jpegHeaderBytes;
  if (ascii(head, 1, 3) === "PNG" && head[0] === 0x89) return pngHeaderBytes;
  // Only the extended format keeps facts past its first chunk (ICC profile, animation frames).
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 4) === "WEBP" && ascii(head, 12, 4) === "VP8X") return webpHeaderBytes;
  // The first IFD may sit anywhere (ffmpeg writes it after the strips).
  if (isTiff(head)) return tiffHeaderBytes;
  return undefined;
}

/** Start-of-frame markers (ITU T.81 B.1.1.3): C0-CF except DHT (C4), JPG (C8) and DAC (CC). */
const isStartOfFrame = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

/** SOI, the EXIF start, every ICC_PROFILE piece, Adobe APP14 and the frame header, then EOI. */
async function jpegHeaderBytes(source: RangeByteSource, guard: () => void): Promise<Uint8Array> {
  // SOI, then an empty comment: image-size steps over the first segment unseen, so it must not be the SOF.
  const parts: Uint8Array[] = [Uint8Array.of(0xff, 0xd8, 0xff, 0xfe, 0x00, 0x02)];
  let iccBytes = 0;
  let o = 2;
  for (let i = 0; i < maxPieces; i++) {
    guard();
    const h = await source.read(o, 4);
    if (h.length < 2 || h[0] !== 0xff) break;
    const marker = h[1]!;
    if (marker === 0xff) { o += 1; continue; } // fill byte
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { o += 2; continue; }
    if (marker === 0xda || marker === 0xd9 || marker === 0xd8) break;
    const length = u16be(h, 2) ?? 0;
    if (length < 2) break;
    const sof = isStartOfFrame(marker);
    if (sof || marker === 0xee) parts.push(await source.read(o, 2 + length));
    else if (marker === 0xe1 || marker === 0xe2) {
      const id = await source.read(o + 4, Math.min(length - 2, 14));
      if (marker === 0xe1 && ascii(id, 0, 6) === "Exif\0\0") {
        const data = await source.read(o + 4, Math.min(length - 2, exifKeepBytes));
        parts.push(Uint8Array.of(0xff, 0xe1, (data.length + 2) >> 8, (data.length + 2) & 0xff), data);
      } else if (marker === 0xe2 && ascii(id, 0, 12) === "ICC_PROFILE\0" && iccBytes + length <= maxIccProfileBytes) {
        iccBytes += length;
        parts.push(await source.read(o, 2 + length));
      }
    }
    // The frame header follows every table and profile the readers use: nothing after it is needed.
    if (sof) break;
    o += 2 + length;
  }
  parts.push(Uint8Array.of(0xff, 0xd9));
  return concatBytes(parts);
}

/** PNG chunks the readers use (IHDR, tRNS, iCCP, sRGB, acTL), up to the first IDAT, then an empty IDAT. */
const keptPngChunks = new Set(["IHDR", "tRNS", "iCCP", "sRGB", "acTL"]);

async function pngHeaderBytes(source: RangeByteSource, guard: () => void): Promise<Uint8Array> {
  const parts: Uint8Array[] = [await source.read(0, 8)];
  let o = 8;
  for (let i = 0; i < maxPieces; i++) {
    guard();
    const h = await source.read(o, 8);
    if (h.length < 8) break;
    const length = u32be(h, 0) ?? 0;
    const type = ascii(h, 4, 4);
    if (type === "IDAT" || type === "IEND") break;
    if (keptPngChunks.has(type) && length <= maxKeptPieceBytes) parts.push(await source.read(o, 12 + length));
    o += 12 + length;
  }
  // An empty IDAT (length 0, type, CRC) ends the header where the readers expect it to end.
  parts.push(Uint8Array.of(0, 0, 0, 0, 0x49, 0x44, 0x41, 0x54, 0, 0, 0, 0));
  return concatBytes(parts);
}

/** VP8X, ICCP and ANIM whole, each ANMF's 16-byte frame header (its duration) without the frame's data. */
async function webpHeaderBytes(source: RangeByteSource, guard: () => void): Promise<Uint8Array> {
  const riff = await source.read(0, 12);
  const riffEnd = Math.min((u32le(riff, 4) ?? 0) + 8, source.size ?? Infinity);
  const parts: Uint8Array[] = [];
  let o = 12;
  for (let i = 0; o + 8 <= riffEnd; i++) {
    // Every frame must be seen, or the frame count would be wrong: an unfinished walk is no answer.
    if (i >= maxPieces) throw new Error("image header walk: too many chunks");
    guard();
    const h = await source.read(o, 8);
    if (h.length < 8) throw new Error("image header walk: the file ends inside its frames");
    const type = ascii(h, 0, 4);
    const size = u32le(h, 4) ?? 0;
    if (type === "ANMF" && size >= 16) {
      const frame = await source.read(o + 8, 16);
      parts.push(Uint8Array.of(0x41, 0x4e, 0x4d, 0x46, 16, 0, 0, 0), frame);
    } else if (((type === "VP8X" || type === "ANIM") && size <= maxKeptPieceBytes) || (type === "ICCP" && size <= maxIccProfileBytes)) {
      const chunk = await source.read(o, 8 + size);
      parts.push(chunk, ...(size & 1 ? [Uint8Array.of(0)] : []));
    }
    o += 8 + size + (size & 1); // chunks are padded to even sizes
  }
  const body = concatBytes(parts);
  const header = new Uint8Array(12);
  header.set(riff.subarray(0, 12));
  new DataView(header.buffer).setUint32(4, body.length + 4, true);
  return concatBytes([header, body]);
}
