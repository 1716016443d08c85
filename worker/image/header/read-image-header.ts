import { imageSize } from "image-size";
import type { ColorFacts } from "./color-facts.ts";
import { gifColorFacts } from "./gif-facts.ts";
import { jpegColorFacts } from "./jpeg-facts.ts";
import { pngColorFacts } from "./png-facts.ts";
import { webpColorFacts } from "./webp-facts.ts";
import { bmpColorFacts, heifColorFacts, icoColorFacts, jxlColorFacts, svgColorFacts, tiffColorFacts } from "./more-formats.ts";
import { animationFacts, type AnimationFacts } from "./animation-facts.ts";
import { jpeg2000ColorFacts } from "./jpeg2000-netpbm-facts.ts";
import { ddsColorFacts, icnsColorFacts, pnmColorFacts, psdColorFacts, tgaColorFacts } from "./texture-facts.ts";
import { pictureAfterJunk, tolerantJpegHeader } from "./damaged-headers.ts";
import { jpegGainMap, type GainMapFacts } from "../../../shared/media/gain-map.ts";
import { formatDuration } from "../../../shared/format/index.ts";
import type { ImageMetadata } from "../../../shared/shapes/media-data.ts";
import type { z } from "zod";

/** Facts readable from an image's header bytes alone. */
export interface ImageHeaderInfo {
  /** image-size's type name, with "jpg" spelled "jpeg" (e.g. "png", "jpeg", "webp", "gif", "avif", "heif", "tiff", "svg"). */
  format: string;
  /** Displayed size: EXIF orientations 5-8 (a quarter turn) swap the stored width and height. */
  width: number;
  height: number;
  /** Only for formats whose colour headers we read; absent otherwise. */
  colorSpace?: string;
  hasAlpha?: boolean;
  /** EXIF orientation 2-8 when the file has one (1, the identity, is left out). */
  orientation?: number;
  /** Description of an embedded ICC profile. */
  iccProfile?: string;
  /** Frames, and for animations one play's length and loop count, when the bytes hold every frame. */
  animation?: AnimationFacts;
  /** An HDR gain map announced by a JPEG's header (Ultra HDR, ISO 21496-1). */
  hdrGainMap?: GainMapFacts;
}

/** image-size's type names (HEIF reports its brand) to ours. */
const formatNames: Readonly<Record<string, string>> = {
  jpg: "jpeg", "jxl-stream": "jxl", heic: "heif", heix: "heif", hevc: "heif", mif1: "heif", msf1: "heif", avis: "avif",
};

/** Formats photon decodes at the edge (edge-formats.ts): their colour chunks must parse. */
const decodedAtEdge = new Set(["png", "jpeg", "webp", "gif"]);

/** Per-format colour readers, looked up by format name. */
const colorFactReaders: Record<string, (b: Uint8Array) => ColorFacts | undefined> = {
  png: pngColorFacts,
  jpeg: jpegColorFacts,
  webp: webpColorFacts,
  gif: gifColorFacts,
  bmp: (b) => bmpColorFacts(b),
  ico: icoColorFacts,
  cur: icoColorFacts,
  svg: svgColorFacts,
  tiff: tiffColorFacts,
  heif: heifColorFacts,
  avif: heifColorFacts,
  jxl: jxlColorFacts,
  jp2: jpeg2000ColorFacts,
  j2c: jpeg2000ColorFacts,
  pnm: pnmColorFacts,
  dds: ddsColorFacts,
  tga: tgaColorFacts,
  psd: psdColorFacts,
  icns: icnsColorFacts,
};

/**
 * Header-only facts (format, size, colour space, alpha, orientation) without decoding pixels.
 * Returns null when the bytes are not a recognised image or the header is truncated or invalid.
 */
export function readImageHeader(bytes: Uint8Array): ImageHeaderInfo | null {
  const info = readWellFormedHeader(bytes);
  if (info) return info;
  // Damaged files decoders still read: a JPEG or PNG behind leading junk, a JPEG whose segment lengths lie.
  const after = pictureAfterJunk(bytes);
  return (after === undefined ? null : readWellFormedHeader(bytes.subarray(after))) ?? tolerantJpegHeader(bytes);
}

function readWellFormedHeader(bytes: Uint8Array): ImageHeaderInfo | null {
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(bytes);
  } catch {
    return null; // image-size throws on unknown types and on truncated headers
  }
  const { width, height } = size;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) return null;
  const format = formatNames[size.type ?? ""] ?? size.type ?? "unknown";
  const orientation = size.orientation && size.orientation >= 2 && size.orientation <= 8 ? size.orientation : undefined;
  const quarterTurn = orientation !== undefined && orientation >= 5;
  const info: ImageHeaderInfo = { format, width: quarterTurn ? height : width, height: quarterTurn ? width : height };
  if (orientation !== undefined) info.orientation = orientation;
  const reader = colorFactReaders[format];
  if (reader) {
    const facts = reader(bytes);
    // A format the edge decodes whose header chunks do not parse is broken; for the others, colour stays unknown.
    if (!facts && decodedAtEdge.has(format)) return null;
    if (facts) {
      info.colorSpace = facts.colorSpace;
      info.hasAlpha = facts.hasAlpha;
      if (facts.iccProfile !== undefined) info.iccProfile = facts.iccProfile;
    }
  }
  const animation = animationFacts(format, bytes);
  if (animation) info.animation = animation;
  const gainMap = format === "jpeg" ? jpegGainMap(bytes) : undefined;
  if (gainMap) info.hdrGainMap = gainMap;
  return info;
}

/** The API's image metadata from header facts; undefined when the colour facts are unknown. */
export function imageMetadataOf(header: ImageHeaderInfo | null): z.infer<typeof ImageMetadata> | undefined {
  if (header?.colorSpace === undefined || header.hasAlpha === undefined) return undefined;
  const a = header.animation;
  return {
    colorSpace: header.colorSpace,
    hasAlpha: header.hasAlpha,
    width: header.width,
    height: header.height,
    ...(header.orientation !== undefined ? { orientation: header.orientation } : {}),
    ...(a ? { frames: a.frames } : {}),
    ...(a?.seconds !== undefined ? { duration: { seconds: a.seconds, formatted: formatDuration(a.seconds) } } : {}),
    ...(a?.loop !== undefined ? { loop: a.loop } : {}),
    ...(header.hdrGainMap ? { hdrGainMap: header.hdrGainMap } : {}),
  };
}
