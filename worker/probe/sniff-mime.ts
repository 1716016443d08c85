import { fileTypeFromBuffer } from "file-type";
import { extraImageFormatOf, extraImageMimes } from "../../shared/media/image-signatures.ts";
import type { MediaCategory } from "../../shared/schemas/stages.ts";
import { isSvgDocument } from "../../shared/media/svg-sniff.ts";
import { isMediaSegment, isWebmMediaSegment, mediaSegmentMime } from "./fmp4-segment.ts";
import { flicMime, isFlic } from "./flic-header.ts";
import { annexBMimeOf } from "./annexb-stream.ts";
import { pictureAfterJunk } from "../../shared/media/picture-after-junk.ts";

/**
 * MIME type from the bytes first (file-type's magic numbers), then HTML/SVG/text recognised by content,
 * and only then the declared Content-Type: origins often send application/octet-stream or a wrong type.
 */
export async function sniffMime(head: Uint8Array, declared: string | undefined): Promise<string> {
  // RF64/BW64 (WAV past 4 GiB, EBU Tech 3306): file-type does not know the magic.
  if (isRf64(head)) return "audio/wav";
  const detected = await fileTypeFromBuffer(head).catch(() => undefined);
  // file-type names any "<?xml" document application/xml: an SVG behind a prolog is still an image.
  if (detected && detected.mime !== "application/xml") return normalizeMime(detected.mime);
  if (isSvgDocument(head)) return "image/svg+xml";
  if (detected) return detected.mime;
  // file-type reads a TIFF's first IFD (to tell camera raw formats apart) and gives up when the IFD is past the head.
  if (isTiffSignature(head)) return "image/tiff";
  // A fragmented-MP4 media segment (styp/sidx/moof, no moov): file-type names no type for it.
  if (isMediaSegment(head)) return mediaSegmentMime;
  // A WebM media segment (one Cluster, no EBML header): still WebM, marked as a segment by the first inspection.
  if (isWebmMediaSegment(head)) return "video/webm";
  // FLI/FLC animations (no magic file-type knows): ffmpeg's flic demuxer decodes them.
  if (isFlic(head)) return flicMime;
  // Raw H.264/HEVC byte streams (no container, no magic): the first NAL unit and a parsing SPS name them.
  const annexB = annexBMimeOf(head);
  if (annexB) return annexB;
  // A JPEG or PNG behind junk: the runner decodes the picture from its signature (image-fallback.ts).
  const picture = pictureAfterJunk(head);
  if (picture !== undefined) {
    const inner = await fileTypeFromBuffer(head.subarray(picture)).catch(() => undefined);
    if (inner?.mime === "image/jpeg" || inner?.mime === "image/png") return inner.mime;
  }
  // Images file-type does not know (netpbm, DDS, TGA): the runner decodes them through ffmpeg.
  const extra = extraImageFormatOf(head);
  if (extra) return extraImageMimes[extra];
  const text = new TextDecoder("utf-8", { fatal: false }).decode(head.subarray(0, 1024)).trimStart().toLowerCase();
  if (text.startsWith("<!doctype html") || text.startsWith("<html") || /<(head|body|meta|title)[\s>]/.test(text)) return "text/html";
  const declaredBase = declared?.split(";")[0]?.trim().toLowerCase();
  if (declaredBase && declaredBase !== "application/octet-stream") return normalizeMime(declaredBase);
  return "application/octet-stream";
}

function isRf64(head: Uint8Array): boolean {
  const text = (o: number) => String.fromCharCode(...head.subarray(o, o + 4));
  return head.length >= 12 && (text(0) === "RF64" || text(0) === "BW64") && text(8) === "WAVE";
}

/** TIFF (42) or BigTIFF (43) in either byte order. */
function isTiffSignature(b: Uint8Array): boolean {
  const le = b[0] === 0x49 && b[1] === 0x49 && b[3] === 0 && (b[2] === 42 || b[2] === 43);
  const be = b[0] === 0x4d && b[1] === 0x4d && b[2] === 0 && (b[3] === 42 || b[3] === 43);
  return le || be;
}

const aliases: Record<string, string> = {
  "audio/x-flac": "audio/flac",
  "audio/x-wav": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/x-m4a": "audio/mp4",
};

function normalizeMime(mime: string): string {
  return aliases[mime] ?? mime;
}

export function categoryOf(mime: string): MediaCategory {
  if (mime.startsWith("image/")) return "image";
  if (mime.startsWith("video/")) return "video";
  if (mime.startsWith("audio/")) return "audio";
  return "webpage";
}
