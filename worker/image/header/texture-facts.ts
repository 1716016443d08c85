import { maxIccProfileBytes } from "../../config/limits.ts";
import { ascii, u16be, u32be, u32le } from "../../bytes/read-bytes.ts";
import { type ColorFacts, withIcc } from "./color-facts.ts";
import { netpbmColorFacts } from "./jpeg2000-netpbm-facts.ts";

/**
 * Colour facts of the formats image-size measures and the runner decodes through ffmpeg: DDS, TGA, PSD, PFM,
 * ICNS. Each answer is what the runner reports after its decode (ffmpeg's pixel format for the file), so `fast`
 * and `full` agree. Fixed-offset reads, except the PSD resource walk, which visits at most `maxPsdResources`.
 */

/** DDS_PIXELFORMAT flags (DDPF_*) and the offset of the structure in the file ("DDS " + 72 header bytes). */
const ddpfAlphaPixels = 0x1;
const ddpfFourCc = 0x4;
const ddpfLuminance = 0x20000;
const ddsPixelFormat = 4 + 72;
/** Block-compressed FourCCs ffmpeg's dds decoder turns into RGBA (DXT1's 1-bit alpha included). */
const alphaFourCcs = new Set(["DXT1", "DXT2", "DXT3", "DXT4", "DXT5"]);
/** DXGI formats (DDS_HEADER_DXT10) with alpha: BC1-BC3 and BC7, typeless, UNORM and sRGB; RGBA8 and RGBA16. */
const alphaDxgi = new Set([70, 71, 72, 73, 74, 75, 76, 77, 78, 97, 98, 99, 27, 28, 29, 10, 11, 87, 91]);

export function ddsColorFacts(b: Uint8Array): ColorFacts | undefined {
  if (ascii(b, 0, 4) !== "DDS ") return undefined;
  const flags = u32le(b, ddsPixelFormat + 4);
  if (flags === undefined) return undefined;
  if (flags & ddpfFourCc) {
    const fourCc = ascii(b, ddsPixelFormat + 8, 4);
    if (fourCc === "DX10") {
      const dxgi = u32le(b, 128);
      return dxgi === undefined ? undefined : { colorSpace: "srgb", hasAlpha: alphaDxgi.has(dxgi) };
    }
    return { colorSpace: "srgb", hasAlpha: alphaFourCcs.has(fourCc) };
  }
  return { colorSpace: flags & ddpfLuminance ? "gray" : "srgb", hasAlpha: (flags & ddpfAlphaPixels) !== 0 };
}

/** TGA: image types 3 and 11 are grey; 32-bit pixels (or 32-bit colour-map entries) decode as BGRA. */
export function tgaColorFacts(b: Uint8Array): ColorFacts | undefined {
  if (b.length < 18) return undefined;
  const type = b[2]!;
  const mapped = type === 1 || type === 9;
  const depth = mapped ? b[7]! : b[16]!;
  if (type === 3 || type === 11) return { colorSpace: "gray", hasAlpha: false };
  return { colorSpace: "srgb", hasAlpha: depth === 32 };
}

/** Photoshop colour modes (file header, offset 24) to our names; multichannel and duotone read as their plates. */
const psdModes: Readonly<Record<number, string>> = { 0: "gray", 1: "gray", 2: "srgb", 3: "srgb", 4: "cmyk", 7: "srgb", 8: "gray", 9: "lab" };
/** Channels of each mode before any extra (alpha) channel. */
const psdBaseChannels: Readonly<Record<number, number>> = { 0: 1, 1: 1, 2: 1, 3: 3, 4: 4, 8: 1, 9: 3 };
/** Image resources looked at for the ICC profile (id 1039); a real file has a few dozen. */
const maxPsdResources = 256;
const psdIccResource = 1039;

/** PSD/PSB: the header's colour mode and channel count (an extra channel is alpha), and the ICC profile resource. */
export function psdColorFacts(b: Uint8Array): ColorFacts | undefined {
  if (ascii(b, 0, 4) !== "8BPS") return undefined;
  const channels = u16be(b, 12);
  const mode = u16be(b, 24);
  if (channels === undefined || mode === undefined) return undefined;
  const colorSpace = psdModes[mode] ?? "srgb";
  const hasAlpha = channels > (psdBaseChannels[mode] ?? channels);
  return withIcc(psdIcc(b), colorSpace, hasAlpha);
}

function psdIcc(b: Uint8Array): Uint8Array | undefined {
  const modeData = u32be(b, 26);
  if (modeData === undefined) return undefined;
  const sectionAt = 30 + modeData;
  const sectionLength = u32be(b, sectionAt);
  if (sectionLength === undefined) return undefined;
  const end = Math.min(b.length, sectionAt + 4 + sectionLength);
  let o = sectionAt + 4;
  for (let n = 0; n < maxPsdResources && o + 12 <= end; n++) {
    if (ascii(b, o, 4) !== "8BIM") return undefined;
    const id = u16be(b, o + 4)!;
    const nameLength = b[o + 6]!;
    const sizeAt = o + 6 + ((1 + nameLength + 1) & ~1); // Pascal string padded to an even length
    const size = u32be(b, sizeAt);
    if (size === undefined) return undefined;
    const data = sizeAt + 4;
    if (id === psdIccResource) return size <= maxIccProfileBytes && data + size <= b.length ? b.subarray(data, data + size) : undefined;
    o = data + size + (size & 1);
  }
  return undefined;
}

/** PFM ("PF" colour, "Pf" grey floats; no alpha), else the netpbm formats. */
export function pnmColorFacts(b: Uint8Array): ColorFacts | undefined {
  if (b[0] === 0x50 && b[1] === 0x46) return { colorSpace: "srgb", hasAlpha: false };
  if (b[0] === 0x50 && b[1] === 0x66) return { colorSpace: "gray", hasAlpha: false };
  return netpbmColorFacts(b);
}

/** ICNS: icon sets are drawn with transparency (8-bit masks or PNG/JPEG 2000 members with alpha). */
export function icnsColorFacts(b: Uint8Array): ColorFacts | undefined {
  return ascii(b, 0, 4) === "icns" ? { colorSpace: "srgb", hasAlpha: true } : undefined;
}
