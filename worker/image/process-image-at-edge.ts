import { PhotonImage } from "@cf-wasm/photon/workerd";
import { stripImageMetadata } from "./bomb-guard.ts";
import { edgeFormatForMime, edgeFormats } from "./edge-formats.ts";
import { type ImageHeaderInfo, readImageHeader } from "./header/read-image-header.ts";
import type { Palette } from "../../shared/media/palette.ts";
import { paletteOf } from "./steps/palette.ts";
import { blurhashPlaceholder } from "./steps/placeholder.ts";
import { downscaleUpright, encodeWebp } from "./steps/thumbnail.ts";

export interface EdgeImageResult {
  /** Displayed size (EXIF orientation applied). */
  width: number;
  height: number;
  /** From the headers: "srgb" (also untagged RGB), "gray", "display-p3", "adobe-rgb", ... or an ICC data space. */
  colorSpace: string;
  /** The file declares alpha (PNG colour type / tRNS, WebP VP8X or VP8L flag, GIF transparency). */
  hasAlpha: boolean;
  thumbnail: { bytes: Uint8Array; width: number; height: number; contentType: "image/webp" };
  /** Blurhash of a downscale of the thumbnail. */
  placeholder: string;
  /** "#rrggbb": the palette's largest colour (palette.colors[0]). */
  dominantColor: string;
  /** Palette of a downscale of the thumbnail (shared/media/palette.ts). */
  palette: Palette;
}

export type EdgeImageFailure = "unsupported-format" | "too-large" | "decode-failed";

export type EdgeImageOutcome =
  | { ok: true; result: EdgeImageResult; timingsMs: Record<string, number> }
  | { ok: false; reason: EdgeImageFailure; detail: string; header?: ImageHeaderInfo };

export interface EdgeImageOptions {
  /** Longest side of the thumbnail in pixels; smaller images keep their size. */
  thumbnailMaxPx: number;
  /** Refuse (too-large) before decoding when width*height exceeds this. See limits.ts. */
  maxDecodePixels: number;
}

/**
 * Decodes an image inside the isolate and derives thumbnail, placeholder and dominant colour. Never
 * throws. Order: header (refuse unsupported or oversized files before any decoding), metadata stripped, decode, resize,
 * WebP encode, blurhash, palette. The full-size decode is freed as soon as the thumbnail exists.
 * `timingsMs` per step: workerd's clock only advances across I/O in production, so there CPU-bound
 * steps may read 0; locally (workerd under miniflare) they show real time.
 */
export async function processImageAtEdge(bytes: Uint8Array, mime: string, opts: EdgeImageOptions): Promise<EdgeImageOutcome> {
  const timingsMs: Record<string, number> = {};
  const started = performance.now();
  let mark = started;
  const lap = (step: string) => {
    const now = performance.now();
    timingsMs[step] = Math.round((now - mark) * 10) / 10;
    mark = now;
  };

  const header = readImageHeader(bytes);
  lap("header");
  if (!header) {
    const claimed = edgeFormatForMime(mime);
    return claimed
      ? { ok: false, reason: "decode-failed", detail: `declared ${mime} but the ${claimed} header is unreadable` }
      : { ok: false, reason: "unsupported-format", detail: `no decodable image header (declared ${mime || "no type"})` };
  }
  const format = edgeFormats[header.format];
  if (!format) {
    return { ok: false, reason: "unsupported-format", detail: `${header.format} is not decoded at the edge`, header };
  }
  const refusal = format.refuse?.(header);
  if (refusal) return { ok: false, reason: "unsupported-format", detail: refusal, header };
  const pixels = header.width * header.height;
  if (pixels > opts.maxDecodePixels) {
    return { ok: false, reason: "too-large", detail: `${header.width}x${header.height} = ${pixels} px > maxDecodePixels ${opts.maxDecodePixels}`, header };
  }

  // photon inflates ancillary chunks without a limit: it only ever sees the pixel data (bomb-guard.ts).
  const guarded = stripImageMetadata(bytes, header.format);
  if (!guarded.ok) return { ok: false, reason: "decode-failed", detail: guarded.detail, header };

  let full: PhotonImage | undefined;
  let thumb: PhotonImage | undefined;
  try {
    full = PhotonImage.new_from_byteslice(guarded.bytes);
    lap("decode");
    thumb = downscaleUpright(full, opts.thumbnailMaxPx, header.orientation);
    full.free();
    full = undefined;
    lap("resize");
    const webp = encodeWebp(thumb);
    lap("webpEncode");
    const placeholder = blurhashPlaceholder(thumb);
    lap("blurhash");
    const palette = paletteOf(thumb);
    lap("palette");
    timingsMs.total = Math.round((performance.now() - started) * 10) / 10;
    return {
      ok: true,
      timingsMs,
      result: {
        width: header.width,
        height: header.height,
        colorSpace: header.colorSpace ?? "srgb",
        hasAlpha: header.hasAlpha ?? false,
        thumbnail: { bytes: webp, width: thumb.get_width(), height: thumb.get_height(), contentType: "image/webp" },
        placeholder,
        dominantColor: palette.dominant,
        palette,
      },
    };
  } catch (error) {
    // photon panics ("RuntimeError: unreachable") on corrupt data; the wasm instance stays usable.
    return { ok: false, reason: "decode-failed", detail: describe(error), header };
  } finally {
    full?.free();
    thumb?.free();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
