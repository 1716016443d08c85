/**
 * Feeds the head reader's tags into a HeadCollector: `<html lang>`, `<meta>`, `<link>`, and the text of
 * `<title>` and `<script type="application/ld+json">`. Shaped as the head reader's collector hooks (a start tag
 * with its attribute map, a raw-text element with its text), so the one linear head reader drives it.
 */
import type { HeadCollector } from "./head-elements.ts";

export interface HeadTag {
  /** Lower-case tag name. */
  name: string;
  /** Lower-case attribute names; values as written (entities not decoded). */
  attrs: ReadonlyMap<string, string>;
}

export function collectHeadTag(collector: HeadCollector, tag: HeadTag, decode: (text: string) => string): void {
  const attr = (name: string) => {
    const value = tag.attrs.get(name);
    return value === undefined ? undefined : decode(value);
  };
  if (tag.name === "html") {
    const lang = attr("lang");
    if (lang) collector.lang(lang);
  } else if (tag.name === "meta") {
    collector.meta({ name: attr("name"), property: attr("property"), itemprop: attr("itemprop"), content: attr("content") });
  } else if (tag.name === "link") {
    collector.link({ rel: attr("rel"), href: attr("href"), type: attr("type"), sizes: attr("sizes") });
  }
}

export function collectHeadText(collector: HeadCollector, tag: HeadTag, text: string, decode: (text: string) => string): void {
  if (tag.name === "title") collector.title(decode(text));
  // JSON-LD is script text: not entity-decoded (HTML does not decode script content).
  else if (tag.name === "script" && (tag.attrs.get("type") ?? "").trim().toLowerCase() === "application/ld+json") collector.jsonLd(text);
}
