/**
 * Image formats that file-type (the edge's sniffer) or libvips (the runner's default decoder) do not know,
 * recognised from the first bytes. One table for both sides: the edge names the MIME type (so the category
 * is image and the file reaches the runner), the runner picks the decoder. Every check reads a fixed number
 * of bytes, except the JPEG marker walk, which visits each header segment once (linear in the head).
 */

export type ExtraImageFormat = "jpeg2000" | "pbm" | "pgm" | "ppm" | "pam" | "pfm" | "psd" | "dds" | "tga" | "jpeg-lossless" | "heif";

export const extraImageMimes: Readonly<Record<ExtraImageFormat, string>> = {
  jpeg2000: "image/jp2",
  pbm: "image/x-portable-bitmap",
  pgm: "image/x-portable-graymap",
  ppm: "image/x-portable-pixmap",
  pam: "image/x-portable-arbitrarymap",
  pfm: "image/x-portable-floatmap",
  psd: "image/vnd.adobe.photoshop",
  dds: "image/vnd-ms.dds",
  tga: "image/x-tga",
  "jpeg-lossless": "image/jpeg",
  heif: "image/heic",
};

const u16le = (b: Uint8Array, o: number) => b[o]! | (b[o + 1]! << 8);
const u32le = (b: Uint8Array, o: number) => (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
const ascii = (b: Uint8Array, o: number, n: number) => String.fromCharCode(...b.subarray(o, o + n));

/** JP2 signature box (ISO 15444-1 I.5.1) or a raw codestream's SOC + SIZ markers. */
function isJpeg2000(b: Uint8Array): boolean {
  const jp2Box = [0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50, 0x20, 0x20, 0x0d, 0x0a, 0x87, 0x0a];
  return jp2Box.every((v, i) => b[i] === v) || (b[0] === 0xff && b[1] === 0x4f && b[2] === 0xff && b[3] === 0x51);
}

/** Netpbm magic digits, and PFM's "PF" (colour) / "Pf" (grey) floating-point maps. */
const netpbmKinds: Readonly<Record<string, ExtraImageFormat>> = { 1: "pbm", 4: "pbm", 2: "pgm", 5: "pgm", 3: "ppm", 6: "ppm", 7: "pam", F: "pfm", f: "pfm" };
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Netpbm: "P1".."P7" (or PFM's "PF"/"Pf") then whitespace, then (P1-P6, PF) a decimal width, or (P7) a header line or comment. */
function netpbmKind(b: Uint8Array): ExtraImageFormat | undefined {
  if (b[0] !== 0x50 || !isSpace(b[2])) return undefined;
  const kind = netpbmKinds[String.fromCharCode(b[1] ?? 0)];
  if (!kind) return undefined;
  let o = 2;
  while (o < 16 && isSpace(b[o])) o++;
  const next = b[o];
  if (next === 0x23) return kind; // a comment line
  if (kind === "pam") return next !== undefined && next >= 0x41 && next <= 0x5a ? kind : undefined; // WIDTH, HEIGHT...
  return next !== undefined && next >= 0x30 && next <= 0x39 ? kind : undefined;
}

/** DirectDraw Surface: "DDS " and the header's own size field, always 124 (DDS_HEADER.dwSize). */
const isDds = (b: Uint8Array) => b.length >= 8 && ascii(b, 0, 4) === "DDS " && u32le(b, 4) === 124;

/** Photoshop: "8BPS", version 1 (PSD) or 2 (PSB), six reserved zero bytes. */
const isPsd = (b: Uint8Array) =>
  b.length >= 14 && ascii(b, 0, 4) === "8BPS" && b[4] === 0 && (b[5] === 1 || b[5] === 2) && b.subarray(6, 12).every((v) => v === 0);

const tgaImageTypes = new Set([1, 2, 3, 9, 10, 11]);
const tgaDepths = new Set([8, 15, 16, 24, 32]);

/**
 * TGA has no magic number: its 18-byte header is checked field by field (colour-map type 0/1, a known image
 * type, a colour map only where the type uses one, a non-zero size, a real pixel depth, reserved descriptor
 * bits clear). Text and the other formats here fail at the first or second byte.
 */
function isTga(b: Uint8Array): boolean {
  if (b.length < 18) return false;
  const mapType = b[1]!;
  const type = b[2]!;
  if (mapType > 1 || !tgaImageTypes.has(type)) return false;
  const mapped = type === 1 || type === 9;
  if (mapped !== (mapType === 1)) return false;
  if (mapType === 0 && b.subarray(3, 8).some((v) => v !== 0)) return false;
  if (mapType === 1 && !tgaDepths.has(b[7]!)) return false;
  const width = u16le(b, 12);
  const height = u16le(b, 14);
  const depth = b[16]!;
  const descriptor = b[17]!;
  return width > 0 && height > 0 && tgaDepths.has(depth) && (descriptor & 0xc0) === 0;
}

/** Lossless start-of-frame markers (ITU T.81 B.1.1.3): SOF3, SOF7, SOF11, SOF15. */
const losslessSof = new Set([0xc3, 0xc7, 0xcb, 0xcf]);
const isSof = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

/** A JPEG whose frame header is lossless (libjpeg builds without it refuse the file); one pass over the segments. */
function isLosslessJpeg(b: Uint8Array): boolean {
  if (b[0] !== 0xff || b[1] !== 0xd8) return false;
  for (let o = 2; o + 4 <= b.length;) {
    if (b[o] !== 0xff) return false;
    const marker = b[o + 1]!;
    if (marker === 0xff) { o += 1; continue; }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) { o += 2; continue; }
    if (marker === 0xda || marker === 0xd9) return false;
    if (isSof(marker)) return losslessSof.has(marker);
    const length = (b[o + 2]! << 8) | b[o + 3]!;
    if (length < 2) return false;
    o += 2 + length;
  }
  return false;
}

/** HEVC-coded HEIF brands (ISO 23008-12 B.4); AVIF (AV1 in HEIF) is not among them: libvips decodes it. */
const hevcBrands = new Set(["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"]);
/** Brands in an ftyp box are read from at most this many bytes of it. */
const maxFtypBytes = 256;

/** An ISO BMFF ftyp whose major or compatible brands name HEVC-coded HEIF, and none names AVIF. */
function isHevcHeif(b: Uint8Array): boolean {
  if (b.length < 16 || ascii(b, 4, 4) !== "ftyp") return false;
  const size = Math.min(((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0, maxFtypBytes, b.length);
  const brands = [ascii(b, 8, 4)];
  for (let o = 16; o + 4 <= size; o += 4) brands.push(ascii(b, o, 4));
  return brands.some((brand) => hevcBrands.has(brand)) && !brands.some((brand) => brand === "avif" || brand === "avis");
}

/** The format of an image file head among those above, or undefined (including for every format libvips reads). */
export function extraImageFormatOf(b: Uint8Array): ExtraImageFormat | undefined {
  if (isJpeg2000(b)) return "jpeg2000";
  if (isPsd(b)) return "psd";
  if (isDds(b)) return "dds";
  if (isHevcHeif(b)) return "heif";
  if (isLosslessJpeg(b)) return "jpeg-lossless";
  return netpbmKind(b) ?? (isTga(b) ? "tga" : undefined);
}
