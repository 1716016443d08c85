import { isJpegAt, pictureAfterJunk } from "../../../shared/media/picture-after-junk.ts";

export { pictureAfterJunk };

/**
 * Header facts of damaged files that decoders still read (the runner decodes them: media-runner's
 * image-fallback.ts), so `fast` states their size too. Both readers visit each byte at most once.
 */

/** What the tolerant JPEG reader finds: a subset of read-image-header.ts's ImageHeaderInfo. */
export interface DamagedJpegHeader { format: "jpeg"; width: number; height: number; colorSpace: string; hasAlpha: false }

/** Start-of-frame markers (ITU T.81 B.1.1.3): C0-CF except DHT (C4), JPG (C8) and DAC (CC). */
const isStartOfFrame = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
/** Markers a resynchronising walk accepts: frame, tables, restart interval, APPn, comment, scan. */
const isHeaderMarker = (m: number) => (m >= 0xc0 && m <= 0xcf) || m === 0xdb || m === 0xdd || (m >= 0xe0 && m <= 0xef) || m === 0xfe || m === 0xda;

/**
 * A JPEG's frame header found the way libjpeg finds it after a segment whose length runs past its end (a cut
 * APP14, an EXIF APP1 whose length lies): when the walk lands on a byte that is not a marker, it moves on to the
 * next 0xFF followed by a header marker. The frame header must be self-consistent (length 8 + 3 per component,
 * a non-zero size) to count. Leading junk is skipped first.
 */
export function tolerantJpegHeader(b: Uint8Array): DamagedJpegHeader | null {
  const start = isJpegAt(b, 0) ? 0 : pictureAfterJunk(b);
  if (start === undefined || !isJpegAt(b, start)) return null;
  for (let o = start + 2; o + 4 <= b.length;) {
    const marker = b[o + 1]!;
    if (b[o] !== 0xff || !isHeaderMarker(marker)) {
      o += 1; // resynchronise: one byte at a time, never back
      continue;
    }
    if (marker === 0xda) return null; // the scan began before any frame header
    const length = (b[o + 2]! << 8) | b[o + 3]!;
    if (isStartOfFrame(marker) && o + 10 <= b.length) {
      const height = (b[o + 5]! << 8) | b[o + 6]!;
      const width = (b[o + 7]! << 8) | b[o + 8]!;
      const components = b[o + 9]!;
      if (length === 8 + 3 * components && width > 0 && height > 0 && components > 0) {
        const colorSpace = components === 1 ? "gray" : components === 4 ? "cmyk" : "srgb";
        return { format: "jpeg", width, height, colorSpace, hasAlpha: false };
      }
    }
    o += length >= 2 ? 2 + length : 1;
  }
  return null;
}
