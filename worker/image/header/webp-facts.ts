import { ascii, u32le } from "../../bytes/read-bytes.ts";
import { type ColorFacts, withIcc } from "./color-facts.ts";

/**
 * WebP colour facts from the RIFF container (RFC 9649): simple lossy `VP8 ` has no alpha; lossless
 * `VP8L` carries an alpha_is_used bit in its header; extended `VP8X` has ICC and alpha flags and the
 * profile itself in an ICCP chunk. WebP pixels are untagged sRGB unless an ICC profile says otherwise.
 */
export function webpColorFacts(b: Uint8Array): ColorFacts | undefined {
  if (ascii(b, 0, 4) !== "RIFF" || ascii(b, 8, 4) !== "WEBP") return undefined;
  const first = ascii(b, 12, 4);
  if (first === "VP8 ") return { colorSpace: "srgb", hasAlpha: false };
  if (first === "VP8L") {
    if (b[20] !== 0x2f) return undefined;
    const bits = u32le(b, 21);
    return bits === undefined ? undefined : { colorSpace: "srgb", hasAlpha: ((bits >>> 28) & 1) === 1 };
  }
  if (first !== "VP8X") return undefined;
  const flags = b[20];
  if (flags === undefined) return undefined;
  let icc: Uint8Array | undefined;
  if (flags & 0x20) {
    for (let o = 12; o + 8 <= b.length;) {
      const size = u32le(b, o + 4) ?? 0;
      if (ascii(b, o, 4) === "ICCP") { icc = b.subarray(o + 8, Math.min(o + 8 + size, b.length)); break; }
      o += 8 + size + (size & 1); // chunks are padded to even sizes
    }
  }
  return withIcc(icc, "srgb", (flags & 0x10) !== 0);
}
