import { renderElement } from "../../shared/projection/html-tags.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";

/**
 * What the oEmbed document and the share page say about one inspected record: the kind of media, its own size,
 * the player element the service already builds (html-tags.ts), the title and the generated thumbnail.
 */

export type SharedKind = "video" | "audio" | "photo";
export interface Size {
  width: number;
  height: number;
}
type Element = ReturnType<typeof renderElement>;

export interface SharedMedia {
  kind: SharedKind;
  /** The media's own size; undefined while not known (a video whose metadata is still pending). */
  size: Size | undefined;
  /** From the origin (oEmbed title, page title or file name): untrusted text. */
  title: string | undefined;
  /** The media (or the provider's embed page) as the player loads it. */
  src: string;
  mime: string;
  element: Element;
  thumbnail: (Size & { url: string }) | undefined;
}

/**
 * Space an <audio> player takes: oEmbed's "video" type needs a width and a height, and audio has no picture. The
 * element is given this size explicitly (playerHtml): a bare <audio controls> is drawn at the browser's own size
 * (Chromium: 300x54), not the document's.
 */
export const audioPlayerSize: Size = { width: 480, height: 54 };
/** A video (or provider player) whose own size is unknown is given the common 16:9 player size. */
export const defaultVideoSize: Size = { width: 640, height: 360 };

/** The shareable view of a record, or undefined when it is not media (a web page, or a kind with no player). */
export function sharedMediaOf(record: ResourceRecord, baseUrl: string): SharedMedia | undefined {
  const title = record.results.title ?? record.probe.title ?? record.probe.filename;
  const element = renderElement(record, title, baseUrl);
  const thumbnail = thumbnailOf(record, baseUrl);
  const base = { title, mime: record.probe.mime, element, thumbnail };
  if (record.provider) {
    if (record.results.embeddable === false) return undefined;
    const kind = record.provider.semanticType === "embedded-audio" ? "audio" : "video";
    return { ...base, kind, size: sizeOf(record.results.oembed?.width, record.results.oembed?.height), src: String(element.attributes.src ?? ""), mime: "text/html" };
  }
  const src = record.probe.finalUrl;
  switch (record.category) {
    case "image":
      return { ...base, kind: "photo", size: sizeOf(record.results.image?.width, record.results.image?.height), src };
    case "video":
      return { ...base, kind: "video", size: videoSize(record), src };
    case "audio":
      return { ...base, kind: "audio", size: audioPlayerSize, src };
    default:
      return undefined;
  }
}

function videoSize(record: ResourceRecord): Size | undefined {
  const own = sizeOf(record.results.video?.width, record.results.video?.height);
  if (own) return own;
  // An HLS/DASH stream declares its renditions' sizes: the largest is what the player can show at best.
  const variants = record.results.streaming?.variants ?? [];
  let best: Size | undefined;
  for (const v of variants) if (v.width && v.height && (!best || v.width * v.height > best.width * best.height)) best = { width: v.width, height: v.height };
  return best;
}

function thumbnailOf(record: ResourceRecord, baseUrl: string): SharedMedia["thumbnail"] {
  const thumbnail = record.results.thumbnail;
  const [w, h] = (thumbnail?.dimensions ?? "").split("x").map(Number);
  const size = sizeOf(w, h);
  // oEmbed sends the three thumbnail fields together: no size, no thumbnail.
  if (!thumbnail || !size) return undefined;
  return { url: new URL(thumbnail.url, baseUrl).href, ...size };
}

function sizeOf(width: unknown, height: unknown): Size | undefined {
  const ok = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v > 0;
  return ok(width) && ok(height) ? { width, height } : undefined;
}

/**
 * An audio player's size within maxwidth/maxheight: each side on its own, since a control bar has no aspect ratio
 * to keep (200 wide stays 54 high, where scaling would make it 200x22).
 */
export function fitAudioPlayer(size: Size, maxWidth?: number, maxHeight?: number): Size {
  return { width: Math.min(size.width, maxWidth ?? size.width), height: Math.min(size.height, maxHeight ?? size.height) };
}

/** Scales `size` down to fit maxwidth/maxheight keeping its aspect ratio; never up (oEmbed 2.2). */
export function fitWithin(size: Size, maxWidth?: number, maxHeight?: number): Size {
  const scale = Math.min(1, maxWidth ? maxWidth / size.width : 1, maxHeight ? maxHeight / size.height : 1);
  if (scale === 1) return size;
  // Rounded down so the answer never passes the consumer's limit; at least one pixel.
  return { width: Math.max(1, Math.floor(size.width * scale)), height: Math.max(1, Math.floor(size.height * scale)) };
}

/** Whether `size` fits the limits as it is (oEmbed: the thumbnail must respect maxwidth and maxheight). */
export function fits(size: Size, maxWidth?: number, maxHeight?: number): boolean {
  return (!maxWidth || size.width <= maxWidth) && (!maxHeight || size.height <= maxHeight);
}
