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

/**
 * The page-fact elements of the head (issue 13), in one forward pass: each tag's end is searched once from its
 * start and a tag without one ends the scan, so the work stays linear in the head's length.
 */
function pageElements(head: string): HeadElements {
  const collector = new HeadCollector();
  const lower = head.toLowerCase();
  let at = 0;
  while (at < head.length) {
    const lt = lower.indexOf("<", at);
    if (lt < 0) break;
    const gt = lower.indexOf(">", lt + 1);
    if (gt < 0) break;
    at = gt + 1;
    let nameEnd = lt + 1;
    while (nameEnd < gt && /[a-z0-9]/.test(lower[nameEnd]!)) nameEnd++;
    const name = lower.slice(lt + 1, nameEnd);
    if (name !== "html" && name !== "meta" && name !== "link" && name !== "title" && name !== "script") continue;
    const tag = { name, attrs: linearAttributes(head.slice(nameEnd, gt)) };
    if (name === "title" || name === "script") {
      const close = lower.indexOf(`</${name}`, at);
      if (close < 0) break;
      collectHeadText(collector, tag, head.slice(at, close), decodeEntities);
      at = close;
    } else {
      collectHeadTag(collector, tag, decodeEntities);
    }
  }
  return collector.result();
}

/** name=value pairs of one tag, read left to right once (no backtracking). */
function linearAttributes(source: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  const n = source.length;
  const space = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "/";
  while (i < n) {
    while (i < n && space(source[i])) i++;
    const start = i;
    while (i < n && !space(source[i]) && source[i] !== "=") i++;
    const name = source.slice(start, i).toLowerCase();
    while (i < n && space(source[i]) && source[i] !== "/") i++;
    if (source[i] !== "=") {
      if (name && !out.has(name)) out.set(name, "");
      if (i === start) i++;
      continue;
    }
    i++;
    while (i < n && space(source[i]) && source[i] !== "/") i++;
    let value: string;
    const quote = source[i];
    if (quote === '"' || quote === "'") {
      const close = source.indexOf(quote, i + 1);
      value = source.slice(i + 1, close < 0 ? n : close);
      i = close < 0 ? n : close + 1;
    } else {
      const begin = i;
      while (i < n && !space(source[i])) i++;
      value = source.slice(begin, i);
    }
    if (name && !out.has(name)) out.set(name, value);
  }
  return out;
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
