/**
 * A linear-time HTML tag scanner for untrusted markup (the regular expressions it
 * replaces took 65 s on 512 KiB of "<link "). Every character is looked at a bounded number of times: tags
 * and raw-text elements are read by forward-only state machines, and a tag longer than `maxTagBytes` is
 * skipped from where reading stopped, never re-read. Not a DOM: it reports start tags with their
 * attributes, and the text of raw-text elements (title, script, style), which is all a head reader needs.
 */

export interface HtmlTag {
  /** Lower-case tag name. */
  name: string;
  /** Lower-case attribute names; the first occurrence wins, as in HTML. Values are not entity-decoded. */
  attrs: ReadonlyMap<string, string>;
}

export interface HtmlVisitor {
  /** A start tag. Return "stop" to end the scan. */
  tag?(tag: HtmlTag): void | "stop";
  /** The text of a raw-text element (title, script, style, textarea), at most `maxTextBytes` of it. */
  text?(tag: HtmlTag, text: string): void;
  /** An end tag (lower-case name). Return "stop" to end the scan. */
  endTag?(name: string): void | "stop";
}

export interface ScanLimits {
  /** Longest start tag read; a longer one is skipped. */
  maxTagBytes: number;
  /** Most attributes kept per tag. */
  maxAttributes: number;
  /** Most characters of a raw-text element handed to the visitor. */
  maxTextBytes: number;
}

export const defaultScanLimits: ScanLimits = { maxTagBytes: 16 * 1024, maxAttributes: 64, maxTextBytes: 64 * 1024 };

/** Elements whose content is text up to their end tag (HTML "raw text" and "escapable raw text"). */
const rawTextElements = new Set(["title", "script", "style", "textarea", "noscript", "template", "xmp"]);

/** Scans `html` from the start. Returns whether a visitor asked to stop (for example at </head>). */
export function scanHtml(html: string, visitor: HtmlVisitor, limits: ScanLimits = defaultScanLimits): { stopped: boolean } {
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf("<", i);
    if (lt < 0) break;
    i = lt + 1;
    const next = html.charCodeAt(i);
    if (html.startsWith("!--", i)) {
      const close = html.indexOf("-->", i + 3);
      if (close < 0) break;
      i = close + 3;
    } else if (next === 0x2f /* / */) {
      const { name, end } = readName(html, i + 1);
      i = skipTo(html, end, ">");
      if (name && visitor.endTag?.(name) === "stop") return { stopped: true };
    } else if (next === 0x21 /* ! */ || next === 0x3f /* ? */) {
      i = skipTo(html, i, ">"); // doctype, CDATA, processing instruction
    } else if (isAsciiAlpha(next)) {
      const read = readStartTag(html, i, limits);
      i = read.end;
      if (!read.tag) continue;
      if (visitor.tag?.(read.tag) === "stop") return { stopped: true };
      if (rawTextElements.has(read.tag.name) && !read.selfClosing) {
        const close = indexOfEndTag(html, read.tag.name, i);
        const stop = close < 0 ? n : close;
        visitor.text?.(read.tag, html.slice(i, Math.min(stop, i + limits.maxTextBytes)));
        i = stop;
      }
    }
  }
  return { stopped: false };
}

function isAsciiAlpha(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

/** One past the next `char` at or after `from`, or the end of the input. */
function skipTo(html: string, from: number, char: string): number {
  const at = html.indexOf(char, from);
  return at < 0 ? html.length : at + 1;
}

/** A tag name: ASCII letters, digits and a few punctuation characters, at most 64 of them. */
function readName(html: string, from: number): { name: string; end: number } {
  let end = from;
  while (end < html.length && end - from < 64) {
    const c = html.charCodeAt(end);
    if (isSpace(c) || c === 0x2f || c === 0x3e) break;
    end++;
  }
  return { name: html.slice(from, end).toLowerCase(), end };
}

/**
 * Reads one start tag whose name begins at `from`. A forward-only state machine over at most `maxTagBytes`
 * characters; a tag not closed within that is dropped and scanning resumes where reading stopped.
 */
function readStartTag(html: string, from: number, limits: ScanLimits): { tag?: HtmlTag; end: number; selfClosing: boolean } {
  const { name, end: nameEnd } = readName(html, from);
  const limit = Math.min(html.length, from + limits.maxTagBytes);
  const attrs = new Map<string, string>();
  let i = nameEnd;
  let selfClosing = false;
  let seen = 0;
  while (i < limit) {
    const c = html.charCodeAt(i);
    if (c === 0x3e /* > */) return { tag: { name, attrs }, end: i + 1, selfClosing };
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === 0x2f /* / */) {
      selfClosing = html.charCodeAt(i + 1) === 0x3e;
      i++;
      continue;
    }
    // Attribute name: up to whitespace, "/", ">" or "=".
    const nameStart = i;
    while (i < limit) {
      const d = html.charCodeAt(i);
      if (isSpace(d) || d === 0x2f || d === 0x3e || (d === 0x3d && i > nameStart)) break;
      i++;
    }
    // Names are only materialised for the first maxAttributes attributes: a tag of thousands of junk
    // attributes costs one pass, not thousands of strings.
    const keep = ++seen <= limits.maxAttributes;
    const attrName = keep ? html.slice(nameStart, i).toLowerCase() : "";
    while (i < limit && isSpace(html.charCodeAt(i))) i++;
    let value = "";
    if (html.charCodeAt(i) === 0x3d /* = */ && i < limit) {
      i++;
      while (i < limit && isSpace(html.charCodeAt(i))) i++;
      const quote = html.charCodeAt(i);
      if (quote === 0x22 || quote === 0x27) {
        let close = i + 1;
        while (close < limit && html.charCodeAt(close) !== quote) close++;
        if (close >= limit) return { end: limit, selfClosing: false };
        if (keep) value = html.slice(i + 1, close);
        i = close + 1;
      } else {
        const valueStart = i;
        while (i < limit) {
          const d = html.charCodeAt(i);
          if (isSpace(d) || d === 0x3e) break;
          i++;
        }
        if (keep) value = html.slice(valueStart, i);
      }
    }
    if (attrName && !attrs.has(attrName)) attrs.set(attrName, value);
  }
  return { end: limit, selfClosing: false };
}

/** Index of `</name` (any case) at or after `from`, or -1. Linear: one indexOf per "</" candidate, moving forward. */
function indexOfEndTag(html: string, name: string, from: number): number {
  let at = from;
  for (;;) {
    const lt = html.indexOf("</", at);
    if (lt < 0) return -1;
    if (html.slice(lt + 2, lt + 2 + name.length).toLowerCase() === name) {
      const after = html.charCodeAt(lt + 2 + name.length);
      if (Number.isNaN(after) || isSpace(after) || after === 0x3e || after === 0x2f) return lt;
    }
    at = lt + 2;
  }
}

const namedEntities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };
/** Longest entity looked at after "&" (e.g. "#x10FFFF"). */
const maxEntityLength = 10;

/** Decodes numeric and the common named character references, in one forward pass. */
export function decodeEntities(text: string): string {
  let amp = text.indexOf("&");
  if (amp < 0) return text;
  const parts: string[] = [];
  let last = 0;
  while (amp >= 0) {
    // Only the next few characters are searched for ";", so "&&&&..." stays linear.
    const stop = Math.min(text.length, amp + 2 + maxEntityLength);
    let semi = amp + 1;
    while (semi < stop && text.charCodeAt(semi) !== 0x3b) semi++;
    if (semi < stop && semi > amp + 1) {
      const decoded = decodeEntity(text.substring(amp + 1, semi));
      if (decoded !== undefined) {
        parts.push(text.substring(last, amp), decoded);
        last = semi + 1;
      }
    }
    amp = text.indexOf("&", amp + 1);
  }
  parts.push(text.substring(last));
  return parts.join("");
}

function decodeEntity(entity: string): string | undefined {
  if (entity.charCodeAt(0) !== 0x23 /* # */) return entity.length <= 4 ? namedEntities[entity.toLowerCase()] : undefined;
  const hex = entity[1] === "x" || entity[1] === "X";
  let code = 0;
  const from = hex ? 2 : 1;
  if (entity.length === from) return undefined;
  for (let k = from; k < entity.length; k++) {
    const digit = parseInt(entity[k]!, hex ? 16 : 10);
    if (Number.isNaN(digit)) return undefined;
    code = code * (hex ? 16 : 10) + digit;
  }
  return code > 0 && code < 0x110000 && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : undefined;
}

/** Collapses runs of whitespace to one space and trims, in one pass. */
export function collapseWhitespace(text: string): string {
  let out = "";
  let pendingSpace = false;
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if (isSpace(c) || c === 0xa0) {
      pendingSpace = out.length > 0;
      continue;
    }
    if (pendingSpace) out += " ";
    pendingSpace = false;
    out += ch;
  }
  return out;
}
