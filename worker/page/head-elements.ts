/**
 * The elements of a page's <head> that page facts are read from, collected by the (one, linear-time) head
 * reader as it streams past them. Values are decoded text (entities resolved by the reader). The collector
 * bounds everything it keeps, so a head of a million <meta> tags costs a bounded amount of memory.
 */

export interface HeadMeta {
  /** `name` attribute, lower-cased (Twitter cards, description, author). */
  name?: string;
  /** `property` attribute, lower-cased (OpenGraph: og:title, article:published_time). */
  property?: string;
  /** `itemprop` attribute (microdata), lower-cased. */
  itemprop?: string;
  content: string;
}

export interface HeadLink {
  /** Space-separated rel tokens, lower-cased. */
  rel: string;
  href: string;
  type?: string;
  sizes?: string;
}

export interface HeadElements {
  title?: string;
  /** `<html lang>`. */
  lang?: string;
  metas: HeadMeta[];
  links: HeadLink[];
  /** Text of each `<script type="application/ld+json">`, at most maxJsonLdBytes each. */
  jsonLd: string[];
}

/** Kept from one head; later elements are ignored (page facts come first in real heads). */
export const maxHeadMetas = 256;
export const maxHeadLinks = 128;
export const maxJsonLdBlocks = 8;
/** Characters of one JSON-LD block kept; a longer block is dropped whole (half a JSON document parses as nothing). */
export const maxJsonLdBytes = 128 * 1024;
/** Characters kept of any one attribute value or title. */
export const maxHeadValueChars = 4096;

export class HeadCollector {
  private readonly elements: HeadElements = { metas: [], links: [], jsonLd: [] };

  title(text: string): void {
    if (this.elements.title === undefined) this.elements.title = clip(text);
  }

  lang(value: string): void {
    if (this.elements.lang === undefined && value.trim()) this.elements.lang = clip(value.trim());
  }

  meta(attributes: { name?: string | null; property?: string | null; itemprop?: string | null; content?: string | null }): void {
    if (this.elements.metas.length >= maxHeadMetas || attributes.content == null) return;
    const meta: HeadMeta = { content: clip(attributes.content) };
    if (attributes.name) meta.name = clip(attributes.name).toLowerCase();
    if (attributes.property) meta.property = clip(attributes.property).toLowerCase();
    if (attributes.itemprop) meta.itemprop = clip(attributes.itemprop).toLowerCase();
    if (meta.name || meta.property || meta.itemprop) this.elements.metas.push(meta);
  }

  link(attributes: { rel?: string | null; href?: string | null; type?: string | null; sizes?: string | null }): void {
    if (this.elements.links.length >= maxHeadLinks || !attributes.rel || !attributes.href) return;
    this.elements.links.push({
      rel: clip(attributes.rel).toLowerCase(),
      href: clip(attributes.href),
      ...(attributes.type ? { type: clip(attributes.type).toLowerCase() } : {}),
      ...(attributes.sizes ? { sizes: clip(attributes.sizes) } : {}),
    });
  }

  /** Whether another JSON-LD block would be kept (so the reader need not buffer its text otherwise). */
  wantsJsonLd(): boolean {
    return this.elements.jsonLd.length < maxJsonLdBlocks;
  }

  jsonLd(text: string): void {
    if (this.wantsJsonLd() && text.length <= maxJsonLdBytes) this.elements.jsonLd.push(text);
  }

  result(): HeadElements {
    return this.elements;
  }
}

function clip(text: string): string {
  return text.length > maxHeadValueChars ? text.slice(0, maxHeadValueChars) : text;
}
