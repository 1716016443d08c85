import { toHtml } from "../../shared/projection/html-tags.ts";
import type { OembedDocument } from "../../shared/schemas/oembed-document.ts";
import { sharePageUrl } from "../../shared/format/share-id.ts";
import { fitAudioPlayer, fits, fitWithin, type SharedMedia, type Size } from "./oembed-media.ts";

/** provider_name of every document: this service is the provider of the embed, whoever hosts the file. */
export const oembedProviderName = "Media URL Inspection API";

export interface DocumentOptions {
  maxwidth?: number;
  maxheight?: number;
  cacheAge: number;
  /** The service's public origin (provider_url). */
  baseUrl: string;
  /** The URL asked about: its share page is named in the document (share_url). */
  url?: string;
}

/** The oEmbed 1.0 document (oembed.com 2.3.4) of shareable media: "photo" for images, "video" with the player otherwise. */
export function oembedDocument(media: SharedMedia & { size: Size }, options: DocumentOptions): OembedDocument {
  const { width, height } = media.kind === "audio" && media.element.tag === "audio"
    ? fitAudioPlayer(media.size, options.maxwidth, options.maxheight)
    : fitWithin(media.size, options.maxwidth, options.maxheight);
  const thumbnail = media.thumbnail && fits(media.thumbnail, options.maxwidth, options.maxheight) ? media.thumbnail : undefined;
  const common = {
    version: "1.0" as const,
    ...(media.title ? { title: media.title } : {}),
    provider_name: oembedProviderName,
    provider_url: `${options.baseUrl}/`,
    cache_age: options.cacheAge,
    ...(thumbnail ? { thumbnail_url: thumbnail.url, thumbnail_width: thumbnail.width, thumbnail_height: thumbnail.height } : {}),
    ...(options.url !== undefined ? { share_url: sharePageUrl(options.baseUrl, options.url) } : {}),
  };
  if (media.kind === "photo") return { ...common, type: "photo", url: media.src, width, height };
  return { ...common, type: "video", html: playerHtml(media, { width, height }), width, height };
}

/**
 * The service's player element, sized to the document. An <audio> has no width/height attributes, so its size is
 * an inline style (the share page's CSP allows exactly that style by its hash: audioStyle).
 */
export function playerHtml(media: SharedMedia, size: Size): string {
  const { tag, attributes } = media.element;
  const sized = tag === "audio" ? { ...attributes, style: audioStyle(size) } : { ...attributes, width: size.width, height: size.height };
  return toHtml({ tag, attributes: sized });
}

/** The inline style that sizes an <audio> player. */
export function audioStyle(size: Size): string {
  return `width:${size.width}px;height:${size.height}px`;
}
