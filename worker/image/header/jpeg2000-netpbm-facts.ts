import { withIcc, type ColorFacts } from "./color-facts.ts";

/**
 * Colour facts of JPEG 2000 and netpbm images, which image-size measures and the runner
 * decodes through ffmpeg. Both readers are bounded: the JP2 walk visits at most `maxJp2Boxes` boxes, the netpbm
 * header is tokenised once over at most `maxNetpbmHeaderBytes` bytes (no regular expression, no backtracking).
 * Local bounds-checked readers keep this file independent of where the shared byte helpers live.
 */
const u16 = (b: Uint8Array, o: number) => (o + 2 <= b.length ? (b[o]! << 8) | b[o + 1]! : undefined);
const u32 = (b: Uint8Array, o: number) => (o + 4 <= b.length ? ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0 : undefined);
const tag = (b: Uint8Array, o: number) => (o + 4 <= b.length ? String.fromCharCode(b[o]!, b[o + 1]!, b[o + 2]!, b[o + 3]!) : "");

/** Boxes looked at in the file and in its jp2h header box together (a real JP2 has about five before jp2h). */
const maxJp2Boxes = 64;
/** Longest netpbm header read (P7's keyword lines and comments included). */
const maxNetpbmHeaderBytes = 1024;

/** Components: 1 grey, 2 grey and alpha, 3 colour, 4 colour and alpha (an extra channel is alpha in practice). */
const byComponents = (n: number): ColorFacts => ({ colorSpace: n <= 2 ? "gray" : "srgb", hasAlpha: n === 2 || n >= 4 });

/** JP2 enumerated colour spaces (ISO 15444-1 I.5.3.3) to our names. */
const enumerated: Readonly<Record<number, string>> = { 16: "srgb", 17: "gray", 18: "srgb", 12: "cmyk", 20: "srgb" };

/**
 * JP2: the header box's ihdr (component count) and colr (an enumerated colour space, or an ICC profile named as
 * color-facts.ts names JPEG's and PNG's); a raw codestream: SIZ's Csiz.
 */
export function jpeg2000ColorFacts(b: Uint8Array): ColorFacts | undefined {
  if (b[0] === 0xff && b[1] === 0x4f) {
    const components = u16(b, 40);
    return components ? byComponents(components) : undefined;
  }
  let components: number | undefined;
  let space: string | undefined;
  let alpha = false;
  let icc: Uint8Array | undefined;
  let end = b.length;
  for (let o = 0, seen = 0; o + 8 <= end && seen < maxJp2Boxes; seen++) {
    const size = u32(b, o)!;
    const type = tag(b, o + 4);
    if (type === "jp2h") { end = size >= 8 ? Math.min(o + size, b.length) : b.length; o += 8; continue; }
    if (type === "ihdr") components = u16(b, o + 16);
    if (type === "colr" && b[o + 8] === 1) space = enumerated[u32(b, o + 11) ?? 0];
    // Method 2 (restricted) or 3 (any) ICC: the profile follows the method, precedence and approximation bytes.
    if (type === "colr" && (b[o + 8] === 2 || b[o + 8] === 3) && size > 11) icc ??= b.subarray(o + 11, Math.min(o + size, b.length));
    // cdef: channel definitions; type 1 or 2 is opacity.
    if (type === "cdef") {
      const n = u16(b, o + 8) ?? 0;
      for (let i = 0; i < Math.min(n, 16); i++) {
        const channelType = u16(b, o + 12 + i * 6);
        if (channelType === 1 || channelType === 2) alpha = true;
      }
    }
    if (size < 8) break; // 0 (to the end) or 1 (64-bit size): nothing we need lies past such a box
    o += size;
  }
  if (components === undefined) return undefined;
  const facts = byComponents(components);
  const hasAlpha = alpha || facts.hasAlpha;
  return icc ? withIcc(icc, space ?? facts.colorSpace, hasAlpha) : { colorSpace: space ?? facts.colorSpace, hasAlpha };
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c;

/** The header's whitespace-separated tokens, comments (# to end of line) left out; stops at ENDHDR or the bound. */
function netpbmTokens(b: Uint8Array): string[] {
  const tokens: string[] = [];
  let current = "";
  let comment = false;
  for (let o = 0; o < Math.min(b.length, maxNetpbmHeaderBytes); o++) {
    const c = b[o]!;
    if (comment) { if (c === 0x0a || c === 0x0d) comment = false; continue; }
    if (c === 0x23) { comment = true; continue; }
    if (!isSpace(c)) { current += String.fromCharCode(c); continue; }
    if (current) tokens.push(current);
    if (current === "ENDHDR" || (tokens[0] !== "P7" && tokens.length === (tokens[0] === "P1" || tokens[0] === "P4" ? 3 : 4))) break;
    current = "";
  }
  return tokens;
}

/** Netpbm: P1/P4 bitmaps and P2/P5 graymaps are grey, P3/P6 pixmaps colour; P7 (PAM) says DEPTH and TUPLTYPE. */
export function netpbmColorFacts(b: Uint8Array): ColorFacts | undefined {
  const tokens = netpbmTokens(b);
  const magic = tokens[0];
  if (magic === "P1" || magic === "P2" || magic === "P4" || magic === "P5") return { colorSpace: "gray", hasAlpha: false };
  if (magic === "P3" || magic === "P6") return { colorSpace: "srgb", hasAlpha: false };
  if (magic !== "P7") return undefined;
  const value = (key: string) => { const i = tokens.indexOf(key); return i > 0 ? tokens[i + 1] : undefined; };
  const tuple = value("TUPLTYPE");
  if (tuple) return { colorSpace: tuple.startsWith("RGB") ? "srgb" : "gray", hasAlpha: tuple.endsWith("_ALPHA") };
  const depth = Number(value("DEPTH"));
  return Number.isInteger(depth) && depth > 0 ? byComponents(depth) : undefined;
}
