import { toHtml } from "../../shared/projection/html-tags.ts";
import type { OembedDocument } from "../../shared/schemas/oembed-document.ts";
import { fits, fitWithin, type SharedMedia, type Size } from "./oembed-media.ts";

/** provider_name of every document: this service is the provider of the embed, whoever hosts the file. */
export const oembedProviderName = "Media URL Inspection API";

export interface DocumentOptions {
  maxwidth?: number;
  maxheight?: number;
  cacheAge: number;
  /** The service's public origin (provider_url). */
  baseUrl: string;
}

/** The oEmbed 1.0 document (oembed.com 2.3.4) of shareable media: "photo" for images, "video" with the player otherwise. */
export function oembedDocument(media: SharedMedia & { size: Size }, options: DocumentOptions): OembedDocument {
  const { width, height } = fitWithin(media.size, options.maxwidth, options.maxheight);
  const thumbnail = media.thumbnail && fits(media.thumbnail, options.maxwidth, options.maxheight) ? media.thumbnail : undefined;
  const common = {
    version: "1.0" as const,
    ...(media.title ? { title: media.title } : {}),
    provider_name: oembedProviderName,
    provider_url: `${options.baseUrl}/`,
    cache_age: options.cacheAge,
    ...(thumbnail ? { thumbnail_url: thumbnail.url, thumbnail_width: thumbnail.width, thumbnail_height: thumbnail.height } : {}),
  };
  if (media.kind === "photo") return { ...common, type: "photo", url: media.src, width, height };
  return { ...common, type: "video", html: playerHtml(media, { width, height }), width, height };
}

/** The service's player element, sized to the document (an <audio> keeps its own layout: it has no picture). */
export function playerHtml(media: SharedMedia, size: Size): string {
  const { tag, attributes } = media.element;
  const sized = tag === "audio" ? attributes : { ...attributes, width: size.width, height: size.height };
  return toHtml({ tag, attributes: sized });
}
