/// <reference types="node" />
// node:zlib comes from the nodejs_compat flag (wrangler.toml); it gives a synchronous, size-capped inflate.
import { inflateSync } from "node:zlib";
import { maxIccProfileBytes } from "../../config/limits.ts";
import { ascii, u32be } from "../../bytes/read-bytes.ts";
import { type ColorFacts, withIcc } from "./color-facts.ts";

/**
 * PNG colour facts from the chunks before the first IDAT (PNG spec 11.2-11.3): alpha from the colour
 * type (4 grey+alpha, 6 RGBA) or a tRNS chunk; colour space from iCCP, else sRGB chunk / colour type.
 * Untagged RGB is reported as "srgb", which is how browsers and CSS treat it.
 */
export function pngColorFacts(b: Uint8Array): ColorFacts | undefined {
  if (ascii(b, 12, 4) !== "IHDR") return undefined;
  const colorType = b[25];
  if (colorType === undefined) return undefined;
  let hasAlpha = colorType === 4 || colorType === 6;
  let icc: Uint8Array | undefined;
  for (let o = 8; o + 12 <= b.length;) {
    const length = u32be(b, o) ?? 0;
    const type = ascii(b, o + 4, 4);
    const data = b.subarray(o + 8, Math.min(o + 8 + length, b.length));
    if (type === "IDAT" || type === "IEND") break;
    if (type === "tRNS") hasAlpha = true;
    if (type === "iCCP") icc = inflateIccp(data);
    o += 12 + length;
  }
  const gray = colorType === 0 || colorType === 4;
  return withIcc(icc, gray ? "gray" : "srgb", hasAlpha);
}

/** iCCP = keyword, NUL, compression method 0, zlib stream. Unreadable profiles are ignored. */
function inflateIccp(data: Uint8Array): Uint8Array | undefined {
  const nul = data.indexOf(0);
  if (nul < 1 || nul > 79 || data[nul + 1] !== 0) return undefined;
  try {
    return new Uint8Array(inflateSync(data.subarray(nul + 2), { maxOutputLength: maxIccProfileBytes }));
  } catch {
    return undefined;
  }
}
