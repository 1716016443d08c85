import { HeadCollector, collectHeadTag, collectHeadText, type HeadElements } from "../page/index.ts";

/** Facts read from an HTML document's <head>: the title, an oEmbed discovery link, and the page-fact elements. */
export interface HtmlHeadFacts {
  title?: string;
  oembedUrl?: string;
  /** meta, link, html lang, title and JSON-LD, for page facts (worker/page). */
  elements?: HeadElements;
}

/** Largest part of a page read while looking for </head>. */
export const maxHtmlHeadBytes = 512 * 1024;

/** Whether `html` contains the end of the head (or the body began), so reading can stop. */
export function headComplete(html: string): boolean {
  return /<\/head\s*>|<body[\s>]/i.test(html);
}

/**
 * Reads <title> and `<link rel="alternate" type="application/json+oembed" href>` (oEmbed spec section 4) from
 * the head only. A small attribute scanner, not a DOM: the head is untrusted and we need two facts from it.
 */
export function readHtmlHead(html: string, baseUrl: string): HtmlHeadFacts {
  const end = html.search(/<\/head\s*>|<body[\s>]/i);
  const head = end >= 0 ? html.slice(0, end) : html;
  const facts: HtmlHeadFacts = {};
  const title = head.match(/<title[^>]*>([\s\S]*?)<\/title\s*>/i)?.[1];
  if (title) {
    const text = decodeEntities(title).replace(/\s+/g, " ").trim();
    if (text) facts.title = text.slice(0, 500);
  }
  facts.elements = pageElements(head);
  for (const tag of head.match(/<link\b[^>]*>/gi) ?? []) {
    const attrs = attributes(tag);
    const rel = (attrs.rel ?? "").toLowerCase().split(/\s+/);
    if (rel.includes("alternate") && (attrs.type ?? "").toLowerCase() === "application/json+oembed" && attrs.href) {
      try {
        facts.oembedUrl = new URL(decodeEntities(attrs.href), baseUrl).href;
      } catch {
        /* an unusable href is ignored */
      }
      break;
    }
  }
  return facts;
}

/** The page-fact elements of the head, through the same attribute scanner (issue 13). */
function pageElements(head: string): HeadElements {
  const collector = new HeadCollector();
  const tagOf = (name: string, source: string) => ({ name, attrs: new Map(Object.entries(attributes(source))) });
  for (const m of head.matchAll(/<(html|meta|link)\b[^>]*>/gi)) collectHeadTag(collector, tagOf(m[1]!.toLowerCase(), m[0]), decodeEntities);
  for (const m of head.matchAll(/<(title|script)\b([^>]*)>([\s\S]*?)<\/\1\s*>/gi)) {
    collectHeadText(collector, tagOf(m[1]!.toLowerCase(), m[2]!), m[3]!, decodeEntities);
  }
  return collector.result();
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*("([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
    out[m[1]!.toLowerCase()] = m[3] ?? m[4] ?? m[5] ?? "";
  }
  return out;
}

const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === "#") {
      const code = entity[1]?.toLowerCase() === "x" ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
    }
    return named[entity.toLowerCase()] ?? whole;
  });
}
