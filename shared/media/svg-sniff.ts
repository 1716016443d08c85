/**
 * Whether a document head is SVG: the root element is <svg> (or a prefixed svg:svg) after what XML allows
 * before it: a BOM, whitespace, the XML declaration and processing instructions, comments and a DOCTYPE
 * (with an internal subset). Each step jumps forward with indexOf, so the scan is linear in the head and
 * never backtracks; a head that ends before the root element is not called SVG.
 */

/** Bytes of the head examined: editors' prologs (comments, DOCTYPE, entity subsets) fit well inside. */
export const svgSniffBytes = 16 * 1024;

export function isSvgDocument(head: Uint8Array): boolean {
  return svgRootOffset(head) !== undefined;
}

/**
 * The byte offset of the <svg> root element, or undefined when the head is not SVG. The runner hands libvips
 * the document from there: its SVG detection looks only at the first bytes, and the DOCTYPE's entity
 * definitions are better dropped than expanded.
 */
export function svgRootOffset(head: Uint8Array): number | undefined {
  // latin1 keeps one character per byte, so indexes are byte offsets; the markup looked for is ASCII.
  const text = new TextDecoder("latin1").decode(head.subarray(0, svgSniffBytes));
  let o = text.startsWith("\u00ef\u00bb\u00bf") ? 3 : 0; // UTF-8 byte order mark
  while (o < text.length) {
    const c = text.charCodeAt(o);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
      o++;
      continue;
    }
    if (c !== 0x3c) return undefined; // text before the root element: not XML
    if (text.startsWith("<?", o)) o = after(text, "?>", o + 2);
    else if (text.startsWith("<!--", o)) o = after(text, "-->", o + 4);
    else if (text.startsWith("<!DOCTYPE", o) || text.startsWith("<!doctype", o)) o = afterDoctype(text, o + 9);
    else return /^<(svg:)?svg[\s>/]/.test(text.slice(o, o + 9)) ? o : undefined;
    if (o < 0) return undefined;
  }
  return undefined;
}

/** The index after the next `end` at or past `from`, or -1. */
function after(text: string, end: string, from: number): number {
  const at = text.indexOf(end, from);
  return at < 0 ? -1 : at + end.length;
}

/** The index after a DOCTYPE's closing ">", past an internal subset in [...] when it has one. */
function afterDoctype(text: string, from: number): number {
  const close = text.indexOf(">", from);
  const open = text.indexOf("[", from);
  if (close < 0) return -1;
  if (open < 0 || open > close) return close + 1;
  const subsetEnd = text.indexOf("]", open);
  return subsetEnd < 0 ? -1 : after(text, ">", subsetEnd);
}
