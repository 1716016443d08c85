import { maxIccProfileBytes } from "../../config/limits.ts";
import { ascii, u16be } from "../../bytes/read-bytes.ts";
import { concatBytes } from "../../../shared/bytes/concat-bytes.ts";
import { type ColorFacts, withIcc } from "./color-facts.ts";

/** Start-of-frame markers (ITU T.81 B.1.1.3): C0-CF except DHT (C4), JPG (C8) and DAC (CC). */
const isStartOfFrame = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

/**
 * JPEG colour facts from the marker segments before the scan: component count of the frame header
 * (1 grey, 3 YCbCr/RGB, 4 CMYK; Adobe YCCK is CMYK too) and the ICC profile that
 * APP2 "ICC_PROFILE" segments carry in numbered pieces. JPEG has no alpha.
 */
export function jpegColorFacts(b: Uint8Array): ColorFacts | undefined {
  if (b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  const iccParts: Uint8Array[] = [];
  let iccBytes = 0;
  let components: number | undefined;
  for (let o = 2; o + 4 <= b.length;) {
    if (b[o] !== 0xff) return undefined;
    const marker = b[o + 1]!;
    if (marker === 0xff) { o += 1; continue; } // fill byte
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { o += 2; continue; }
    if (marker === 0xda || marker === 0xd9) break; // scan data or end: every header segment is behind us
    const length = u16be(b, o + 2) ?? 0;
    if (length < 2) return undefined;
    const seg = b.subarray(o + 4, Math.min(o + 2 + length, b.length));
    if (marker === 0xe2 && ascii(seg, 0, 12) === "ICC_PROFILE\0" && seg.length > 14) {
      iccBytes += seg.length - 14;
      // Pieces are numbered from 1 (byte 12) out of a count (byte 13); keep them in order.
      if (iccBytes <= maxIccProfileBytes) iccParts[(seg[12] ?? 1) - 1] = seg.subarray(14);
    }
    if (isStartOfFrame(marker)) components = seg[5];
    o += 2 + length;
  }
  if (components === undefined) return undefined;
  // A profile with a missing piece is unusable; Array.from turns holes into undefined.
  const complete = iccParts.length > 0 && Array.from(iccParts).every(Boolean);
  const icc = complete ? concatBytes(iccParts) : undefined;
  const own = components === 1 ? "gray" : components === 4 ? "cmyk" : "srgb";
  return withIcc(icc, own, false);
}
