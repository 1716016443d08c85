import { collapseWhitespace, decodeEntities, scanHtml, type HtmlTag } from "./html-scan.ts";
import { HeadCollector as PageElementCollector, collectHeadTag, collectHeadText, type HeadElements } from "../page/index.ts";

/** Facts read from an HTML document's <head>: the title, an oEmbed discovery link, and the page-fact elements. */
export interface HtmlHeadFacts {
  title?: string;
  oembedUrl?: string;
  /** meta, link, html lang, title and JSON-LD, for page facts (worker/page). */
  elements?: HeadElements;
}

/** Largest part of a page read while looking for </head>. */
export const maxHtmlHeadBytes = 512 * 1024;
/** Longest title kept (characters). */
const maxTitleLength = 500;

/**
 * One fact collector of the head reader. Each sees every start tag (and raw-text content) of the head once;
 * adding a fact (OpenGraph, JSON-LD, ...) means adding a collector here, not another pass over the page.
 */
interface HeadCollector {
  tag?(tag: HtmlTag, facts: HtmlHeadFacts, baseUrl: string): void;
  text?(tag: HtmlTag, text: string, facts: HtmlHeadFacts): void;
}

const titleCollector: HeadCollector = {
  text(tag, text, facts) {
    if (tag.name !== "title" || facts.title !== undefined) return;
    const title = collapseWhitespace(decodeEntities(text.slice(0, maxTitleLength * 8)));
    if (title) facts.title = title.slice(0, maxTitleLength);
  },
};

/** `<link rel="alternate" type="application/json+oembed" href>` (oEmbed spec section 4); the first one wins. */
const oembedLinkCollector: HeadCollector = {
  tag(tag, facts, baseUrl) {
    if (tag.name !== "link" || facts.oembedUrl !== undefined) return;
    const rel = (tag.attrs.get("rel") ?? "").toLowerCase().split(/[ \t\n\f\r]+/);
    const href = tag.attrs.get("href");
    if (!rel.includes("alternate") || (tag.attrs.get("type") ?? "").toLowerCase() !== "application/json+oembed" || !href) return;
    try {
      facts.oembedUrl = new URL(decodeEntities(href), baseUrl).href;
    } catch {
      /* an unusable href is ignored */
    }
  },
};

/** The bounded element collector of worker/page, one per read (its result is facts.elements). */
const pageCollectors = new WeakMap<HtmlHeadFacts, PageElementCollector>();

function pageCollectorOf(facts: HtmlHeadFacts): PageElementCollector {
  let collector = pageCollectors.get(facts);
  if (!collector) {
    collector = new PageElementCollector();
    pageCollectors.set(facts, collector);
    facts.elements = collector.result();
  }
  return collector;
}

/** `<html lang>`, `<meta>`, `<link>`, `<title>` and JSON-LD for page facts (OpenGraph, Twitter, JSON-LD, HTML). */
const pageElementsCollector: HeadCollector = {
  tag(tag, facts) {
    collectHeadTag(pageCollectorOf(facts), tag, decodeEntities);
  },
  text(tag, text, facts) {
    collectHeadText(pageCollectorOf(facts), tag, text, decodeEntities);
  },
};

const headCollectors: readonly HeadCollector[] = [titleCollector, oembedLinkCollector, pageElementsCollector];

/** Where the head ends: its end tag, or the first tag that can only be in the body. */
function endsHead(name: string): boolean {
  return name === "body";
}

/** Whether `html` contains the end of the head (or the body began), so reading can stop. One linear scan. */
export function headComplete(html: string): boolean {
  return scanHtml(html.slice(0, maxHtmlHeadBytes), {
    tag: (tag) => (endsHead(tag.name) ? "stop" : undefined),
    endTag: (name) => (name === "head" ? "stop" : undefined),
  }).stopped;
}

/**
 * Reads the head's facts in one linear scan of at most maxHtmlHeadBytes: the head is
 * untrusted, so no backtracking regular expression ever sees it.
 */
export function readHtmlHead(html: string, baseUrl: string): HtmlHeadFacts {
  const facts: HtmlHeadFacts = {};
  scanHtml(html.slice(0, maxHtmlHeadBytes), {
    tag(tag) {
      if (endsHead(tag.name)) return "stop";
      for (const c of headCollectors) c.tag?.(tag, facts, baseUrl);
    },
    text(tag, text) {
      for (const c of headCollectors) c.text?.(tag, text, facts);
    },
    endTag: (name) => (name === "head" ? "stop" : undefined),
  });
  return facts;
}
