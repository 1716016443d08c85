/**
 * The deepest element nesting of an XML document, found by one linear pass over its markup, so that a hostile
 * MPD is refused before the XML parser (xmldom, through mpd-parser) builds it: that parser's work grows faster
 * than linearly with nesting (512 KiB of unclosed start tags: minutes), and DOM walks over it recurse.
 * Comments, CDATA sections, processing instructions and declarations are skipped; quoted attribute values may
 * hold `>`. Stops as soon as `limit` is passed.
 */
export function xmlNestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let i = text.indexOf("<");
  while (i >= 0 && i < text.length) {
    const next = text.charCodeAt(i + 1);
    if (text.startsWith("<!--", i)) i = after(text, "-->", i + 4);
    else if (text.startsWith("<![CDATA[", i)) i = after(text, "]]>", i + 9);
    else if (next === 0x3f /* ? */) i = after(text, "?>", i + 2);
    else if (next === 0x21 /* ! */) i = after(text, ">", i + 2);
    else if (next === 0x2f /* / */) {
      depth = Math.max(0, depth - 1);
      i = after(text, ">", i + 2);
    } else {
      const end = tagEnd(text, i + 1);
      if (end < 0) return false; // a start tag never closed ends the document: the parser rejects it
      if (text.charCodeAt(end - 1) !== 0x2f /* / */ && ++depth > limit) return true;
      i = end + 1;
    }
    i = i < 0 ? -1 : text.indexOf("<", i);
  }
  return false;
}

/** Index just past `token` from `from`, or -1 when it never comes. */
function after(text: string, token: string, from: number): number {
  const at = text.indexOf(token, from);
  return at < 0 ? -1 : at + token.length;
}

/** Index of the `>` that ends a start tag, skipping quoted attribute values; -1 when there is none. */
function tagEnd(text: string, from: number): number {
  let quote = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === 0x3e) return i;
  }
  return -1;
}
