import { parse as exifrParse, sidecar as exifrSidecar } from "exifr";

/** exifr's options (its typings leave out translateKeys/translateValues/reviveValues/multiSegment/silentErrors). */
type Options = NonNullable<Parameters<typeof exifrSidecar>[1]> & Record<string, unknown>;
import { ascii, u32le } from "../bytes/read-bytes.ts";
import { maxMetadataBytes, maxXmpBytes, metadataParserTimeoutMs } from "../config/limits.ts";
import { withDeadline } from "./deadline.ts";
import { indexOfBytes } from "../bytes/byte-search.ts";

/**
 * The EXIF, IPTC IIM and XMP tags of an image, as exifr groups them (`ifd0`, `exif`, `gps`, `iptc`, and one
 * object per XMP namespace prefix: `dc`, `xmpRights`, `cc`, `photoshop`, `Iptc4xmpExt`, ...).
 */
export type TagGroups = Record<string, Record<string, unknown> | undefined>;

export interface ImageTagsRead {
  tags?: TagGroups;
  /** Why a block was left out (malformed, too large, too slow). */
  problems: string[];
}

const exifrOptions: Options = {
  tiff: true, exif: true, gps: true, interop: false, ifd1: false, makerNote: false, userComment: false,
  iptc: true, xmp: true, icc: false, jfif: false, ihdr: false,
  translateKeys: true, translateValues: false, reviveValues: false, sanitize: true, mergeOutput: false,
  multiSegment: true, silentErrors: true,
};

/**
 * Reads the tags from bytes already in hand (the probe's prefix), never the network: exifr walks JPEG
 * segments, PNG chunks, HEIF/AVIF boxes and TIFF IFDs in a buffer; WebP's EXIF and XMP chunks are handed to it
 * (exifr has no RIFF reader). Work is bounded by the input (at most `maxMetadataBytes`), an XMP packet over
 * `maxXmpBytes` is refused before parsing, and each parse has a time cap. XMP is parsed by exifr's own scanner,
 * which never reads a DTD, so entities are never expanded.
 */
/** Containers exifr reads (WebP through its chunks, below); other images (GIF, BMP, ...) carry none of these tags. */
const exifrMimes = new Set(["image/jpeg", "image/png", "image/webp", "image/tiff", "image/heic", "image/heif", "image/avif"]);

export async function readImageTags(mime: string, bytes: Uint8Array): Promise<ImageTagsRead> {
  const problems: string[] = [];
  if (!exifrMimes.has(mime)) return { problems };
  const input = bytes.subarray(0, maxMetadataBytes);
  const xmpSize = largestXmpPacket(input);
  const xmp = xmpSize <= maxXmpBytes;
  if (!xmp) problems.push(`xmp: packet of ${xmpSize} bytes is over ${maxXmpBytes}`);
  try {
    if (mime === "image/webp") return { tags: await readWebp(input, xmp, problems), problems };
    const tags = await withDeadline(exifrParse(input, { ...exifrOptions, xmp }), metadataParserTimeoutMs, "exifr") as TagGroups | undefined;
    return { ...(tags ? { tags } : {}), problems };
  } catch (err) {
    problems.push(`exif/xmp: ${err instanceof Error ? err.message : String(err)}`);
    return { problems };
  }
}

/** WebP keeps EXIF (a TIFF block) and XMP in their own RIFF chunks. */
async function readWebp(b: Uint8Array, xmp: boolean, problems: string[]): Promise<TagGroups | undefined> {
  let out: TagGroups | undefined;
  for (const chunk of riffChunks(b)) {
    if (chunk.type === "EXIF") {
      const tiff = chunk.body[0] === 0x45 ? chunk.body.subarray(6) : chunk.body; // some writers keep "Exif\0\0"
      const tags = await withDeadline(exifrParse(tiff, { ...exifrOptions, xmp: false, iptc: false }), metadataParserTimeoutMs, "exifr")
        .catch((err: unknown) => { problems.push(`exif: ${String(err)}`); return undefined; }) as TagGroups | undefined;
      out = { ...out, ...tags };
    } else if (chunk.type === "XMP " && xmp) {
      const tags = await withDeadline(exifrSidecar(chunk.body, { ...exifrOptions }, "xmp"), metadataParserTimeoutMs, "exifr")
        .catch((err: unknown) => { problems.push(`xmp: ${String(err)}`); return undefined; }) as TagGroups | undefined;
      out = { ...tags, ...out };
    }
  }
  return out;
}

/** RIFF chunks held in the bytes (a chunk cut short by the end of the buffer ends the walk). */
function* riffChunks(b: Uint8Array): Generator<{ type: string; body: Uint8Array }> {
  if (ascii(b, 0, 4) !== "RIFF" || ascii(b, 8, 4) !== "WEBP") return;
  let o = 12;
  for (let i = 0; i < 64 && o + 8 <= b.length; i++) {
    const size = u32le(b, o + 4) ?? 0;
    if (o + 8 + size > b.length) return;
    yield { type: ascii(b, o, 4), body: b.subarray(o + 8, o + 8 + size) };
    o += 8 + size + (size & 1);
  }
}

const xpacketBegin = new TextEncoder().encode("<x:xmpmeta");
const xpacketEnd = new TextEncoder().encode("</x:xmpmeta>");

/**
 * Size of the largest XMP packet in the bytes (from `<x:xmpmeta` to its end tag, or to the end of the bytes
 * when the end tag is missing): a declared length is never trusted, the bytes are counted. Linear time.
 */
export function largestXmpPacket(b: Uint8Array): number {
  let largest = 0;
  let from = 0;
  for (;;) {
    const start = indexOfBytes(b, xpacketBegin, from);
    if (start < 0) return largest;
    const end = indexOfBytes(b, xpacketEnd, start);
    const stop = end < 0 ? b.length : end + xpacketEnd.length;
    largest = Math.max(largest, stop - start);
    from = stop;
  }
}
