/**
 * `data.page` from a page's head: OpenGraph, then Twitter cards, then JSON-LD, then plain HTML, in that order of
 * trust (the page's own social metadata is what its authors curate; <title> often carries site chrome).
 */
import type { Page } from "../../shared/shapes/streaming-page.ts";
import { absoluteHttpUrl } from "./absolute-url.ts";
import type { HeadElements } from "./head-elements.ts";
import { readJsonLd } from "./json-ld.ts";
import { mediaCandidates, type MediaCandidate } from "./media-candidates.ts";

/** Characters kept of a reported text fact. */
export const maxPageTextChars = 1000;

export interface PageFacts {
  /** Facts without `media` (that needs the named media inspected). */
  page: Page;
  /** Direct media or manifests the page names, best first. */
  media: MediaCandidate[];
}

export function pageFacts(head: HeadElements, pageUrl: string): PageFacts {
  const og = (key: string) => textOf(head.metas.find((m) => m.property === key)?.content);
  // Twitter cards are specified with `name`, but many sites use `property`.
  const tw = (key: string) => textOf(head.metas.find((m) => m.name === key || m.property === key)?.content);
  const named = (key: string) => textOf(head.metas.find((m) => m.name === key || m.itemprop === key)?.content);
  const link = (...rels: string[]) => head.links.find((l) => l.rel.split(/\s+/).some((r) => rels.includes(r)))?.href;
  const url = (value: string | undefined) => (value ? absoluteHttpUrl(value, pageUrl) : undefined);
  const ld = readJsonLd(head.jsonLd);

  const ogAuthor = og("article:author");
  const image = url(og("og:image:secure_url") ?? og("og:image:url") ?? og("og:image"))
    ?? url(tw("twitter:image") ?? tw("twitter:image:src")) ?? url(ld.image) ?? url(link("image_src"));
  const page: Page = {};
  assign(page, "title", og("og:title") ?? tw("twitter:title") ?? textOf(ld.title) ?? textOf(head.title));
  assign(page, "description", og("og:description") ?? tw("twitter:description") ?? textOf(ld.description) ?? named("description"));
  assign(page, "siteName", og("og:site_name") ?? textOf(ld.siteName) ?? named("application-name"));
  assign(page, "image", image);
  if (image && image === url(og("og:image:secure_url") ?? og("og:image:url") ?? og("og:image"))) {
    assign(page, "imageWidth", dimension(og("og:image:width")));
    assign(page, "imageHeight", dimension(og("og:image:height")));
  }
  assign(page, "favicon", url(link("icon") ?? link("apple-touch-icon")));
  // article:author is often a profile URL rather than a name; a URL is not an author's name.
  assign(page, "author", (ogAuthor && !absoluteUrlLike(ogAuthor) ? ogAuthor : undefined) ?? tw("twitter:creator") ?? textOf(ld.author) ?? named("author"));
  assign(page, "publishedAt", og("article:published_time") ?? textOf(ld.publishedAt) ?? named("datepublished") ?? named("date"));
  assign(page, "canonicalUrl", url(og("og:url")) ?? url(ld.url) ?? url(link("canonical")));
  assign(page, "lang", locale(og("og:locale")) ?? textOf(ld.lang) ?? textOf(head.lang));
  const { candidates, embed } = mediaCandidates(head, ld, pageUrl);
  if (embed) page.embed = embed;
  return { page, media: candidates };
}

function textOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const clean = value.replace(/\s+/g, " ").trim();
  if (!clean) return undefined;
  return clean.length > maxPageTextChars ? `${clean.slice(0, maxPageTextChars - 1)}…` : clean;
}

/** og:locale is en_US; BCP 47 is en-US. */
function locale(value: string | undefined): string | undefined {
  return value && /^[a-z]{2,3}([_-][A-Za-z0-9]{2,8})*$/i.test(value) ? value.replace(/_/g, "-") : undefined;
}

function dimension(value: string | undefined): number | undefined {
  const n = value !== undefined && /^\d{1,6}$/.test(value) ? Number(value) : 0;
  return n > 0 ? n : undefined;
}

function absoluteUrlLike(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

function assign<K extends keyof Page>(page: Page, key: K, value: Page[K] | undefined): void {
  if (value !== undefined) page[key] = value;
}
