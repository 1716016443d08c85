import { ascii, u16be, u32be, u32le } from "../../bytes/read-bytes.ts";
import { type ColorFacts, withIcc } from "./color-facts.ts";
import { pngColorFacts } from "./png-facts.ts";

/**
 * Colour facts of the formats image-size measures but the edge does not decode (BMP, ICO/CUR, SVG, TIFF,
 * HEIF/AVIF, JPEG XL), read from their headers so every readable image has complete metadata in `fast`.
 */

const u16le = (b: Uint8Array, o: number) => (o + 2 <= b.length ? b[o]! | (b[o + 1]! << 8) : undefined);

/** BMP (BITMAPINFOHEADER and later): 32-bit pixels carry alpha when V4+ headers declare an alpha mask. */
export function bmpColorFacts(b: Uint8Array, dib = 14): ColorFacts | undefined {
  const headerSize = u32le(b, dib);
  const bits = u16le(b, dib + 14);
  if (headerSize === undefined || bits === undefined) return undefined;
  const alphaMask = headerSize >= 56 ? (u32le(b, dib + 52) ?? 0) : 0;
  return { colorSpace: "srgb", hasAlpha: bits === 32 && alphaMask !== 0 };
}

/** ICO/CUR: the first directory entry's image, PNG or a headerless BMP whose 32-bit pixels are BGRA. */
export function icoColorFacts(b: Uint8Array): ColorFacts | undefined {
  const offset = u32le(b, 6 + 12);
  if (offset === undefined) return undefined;
  if (ascii(b, offset + 1, 3) === "PNG") return pngColorFacts(b.subarray(offset));
  const bits = u16le(b, offset + 14);
  return bits === undefined ? undefined : { colorSpace: "srgb", hasAlpha: bits === 32 };
}

/** SVG paints on a transparent canvas in sRGB (CSS Color 4 default). */
export function svgColorFacts(): ColorFacts {
  return { colorSpace: "srgb", hasAlpha: true };
}

/** TIFF: the first IFD's PhotometricInterpretation (262), ExtraSamples (338), ICC profile (34675). */
export function tiffColorFacts(b: Uint8Array): ColorFacts | undefined {
  const le = b[0] === 0x49;
  const r16 = (o: number) => (le ? u16le(b, o) : u16be(b, o));
  const r32 = (o: number) => (le ? u32le(b, o) : u32be(b, o));
  const ifd = r32(4);
  const count = ifd === undefined ? undefined : r16(ifd);
  if (ifd === undefined || count === undefined) return undefined;
  let photometric: number | undefined;
  let extra = false;
  let icc: Uint8Array | undefined;
  for (let i = 0; i < Math.min(count, 512); i++) {
    const e = ifd + 2 + i * 12;
    const tag = r16(e);
    const type = r16(e + 2);
    const value = type === 3 ? r16(e + 8) : r32(e + 8);
    if (tag === 262) photometric = value;
    if (tag === 338) extra = true;
    if (tag === 34675) {
      const length = r32(e + 4) ?? 0;
      const at = r32(e + 8) ?? 0;
      if (at + length <= b.length) icc = b.subarray(at, at + length);
    }
  }
  if (photometric === undefined) return undefined;
  const own = photometric <= 1 ? "gray" : photometric === 5 ? "cmyk" : photometric === 8 ? "lab" : "srgb";
  return withIcc(icc, own, extra);
}

interface Box { type: string; start: number; end: number }
function* boxes(b: Uint8Array, start: number, end: number): Generator<Box> {
  for (let o = start; o + 8 <= end;) {
    const size = u32be(b, o) ?? 0;
    if (size < 8) return;
    yield { type: ascii(b, o + 4, 4), start: o + 8, end: Math.min(o + size, end) };
    o += size;
  }
}

/** nclx colour primaries (ITU-T H.273) to our names. */
const primaries: Readonly<Record<number, string>> = { 1: "srgb", 9: "rec2020", 12: "display-p3" };

/**
 * HEIF/AVIF: item properties in meta/iprp/ipco: `colr` (an ICC profile or nclx primaries) and `auxC`
 * naming an alpha plane (AVIF and HEVC URNs).
 */
export function heifColorFacts(b: Uint8Array): ColorFacts | undefined {
  const meta = [...boxes(b, 0, b.length)].find((x) => x.type === "meta");
  if (!meta) return undefined;
  const iprp = [...boxes(b, meta.start + 4, meta.end)].find((x) => x.type === "iprp");
  const ipco = iprp && [...boxes(b, iprp.start, iprp.end)].find((x) => x.type === "ipco");
  if (!ipco) return undefined;
  let hasAlpha = false;
  let icc: Uint8Array | undefined;
  let named: string | undefined;
  for (const p of boxes(b, ipco.start, ipco.end)) {
    if (p.type === "auxC" && /alpha|auxid:1/.test(ascii(b, p.start + 4, Math.min(64, p.end - p.start - 4)))) hasAlpha = true;
    if (p.type === "colr") {
      const kind = ascii(b, p.start, 4);
      if (kind === "prof" || kind === "rICC") icc ??= b.subarray(p.start + 4, p.end);
      if (kind === "nclx") named ??= primaries[u16be(b, p.start + 4) ?? 0];
    }
  }
  return withIcc(icc, named ?? "srgb", hasAlpha);
}

/** Little-endian bit reader for the JPEG XL headers (ISO/IEC 18181-1 annex A/B). */
class Bits {
  private bit = 0;
  constructor(private readonly b: Uint8Array, private readonly start: number) {}
  read(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++, this.bit++) v |= (((this.b[this.start + (this.bit >> 3)] ?? 0) >> (this.bit & 7)) & 1) << i;
    return v >>> 0;
  }
  /** U32(d0, d1, d2, d3): a 2-bit selector, then [offset, bits] of that distribution. */
  u32(...d: [number, number][]): number {
    const [offset, bits] = d[this.read(2)]!;
    return offset + (bits ? this.read(bits) : 0);
  }
}

/**
 * JPEG XL: SizeHeader then ImageMetadata up to the extra channels (alpha is the first kind) and the colour
 * encoding's space (grey or RGB). Bare codestream (FF 0A) or the ISOBMFF container's `jxlc` box.
 */
export function jxlColorFacts(b: Uint8Array): ColorFacts | undefined {
  let start = -1;
  if (b[0] === 0xff && b[1] === 0x0a) start = 2;
  else for (const box of boxes(b, 0, b.length)) if (box.type === "jxlc" && b[box.start] === 0xff && b[box.start + 1] === 0x0a) start = box.start + 2;
  if (start < 0) return undefined;
  const r = new Bits(b, start);
  // SizeHeader
  if (r.read(1)) { r.read(5); if (r.read(3) === 0) r.read(5); }
  else {
    const size = (): number => r.u32([1, 9], [1, 13], [1, 18], [1, 30]);
    size();
    if (r.read(3) === 0) size();
  }
  // ImageMetadata
  if (r.read(1)) return { colorSpace: "srgb", hasAlpha: false }; // all_default
  if (r.read(1)) { // extra_fields
    r.read(3); // orientation
    if (r.read(1)) { if (r.read(1)) { r.read(5); if (r.read(3) === 0) r.read(5); } else { r.u32([1, 9], [1, 13], [1, 18], [1, 30]); if (r.read(3) === 0) r.u32([1, 9], [1, 13], [1, 18], [1, 30]); } }
    if (r.read(1)) { // preview
      if (r.read(1)) { r.u32([16, 0], [32, 0], [1, 5], [33, 9]); if (r.read(3) === 0) r.u32([16, 0], [32, 0], [1, 5], [33, 9]); }
      else { r.u32([1, 6], [65, 8], [321, 10], [1345, 12]); if (r.read(3) === 0) r.u32([1, 6], [65, 8], [321, 10], [1345, 12]); }
    }
    if (r.read(1)) { r.u32([100, 0], [1000, 0], [1, 10], [1, 30]); r.u32([1, 0], [1001, 0], [1, 8], [1, 10]); r.u32([0, 0], [0, 3], [0, 16], [0, 32]); r.read(1); }
  }
  if (r.read(1)) { r.u32([32, 0], [16, 0], [24, 0], [1, 6]); r.read(4); } else r.u32([8, 0], [10, 0], [12, 0], [1, 6]);
  r.read(1); // modular_16bit_buffers
  const extraChannels = r.u32([0, 0], [1, 0], [2, 4], [1, 12]);
  let hasAlpha = false;
  if (extraChannels > 0) {
    // The first ExtraChannelInfo: d_alpha = default alpha; otherwise its type enum (0 = alpha).
    hasAlpha = r.read(1) === 1 || r.u32([0, 0], [1, 0], [2, 4], [18, 6]) === 0;
    if (extraChannels > 1 || !hasAlpha) return { colorSpace: "srgb", hasAlpha };
  }
  r.read(1); // xyb_encoded
  if (r.read(1)) return { colorSpace: "srgb", hasAlpha }; // colour encoding all_default
  r.read(1); // want_icc
  const space = r.u32([0, 0], [1, 0], [2, 4], [18, 6]);
  return { colorSpace: space === 1 ? "gray" : "srgb", hasAlpha };
}
