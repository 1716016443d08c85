/**
 * A JPEG or PNG behind leading junk (bytes a server or an editor put in front of it): decoders still read the
 * picture from its signature. One linear pass over at most `maxJunkBytes`.
 */

/** Leading junk skipped in search of a JPEG or PNG signature: what a server or an editor puts in front. */
const maxJunkBytes = 64 * 1024;
const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const;

export const isJpegAt = (b: Uint8Array, o: number) => b[o] === 0xff && b[o + 1] === 0xd8 && b[o + 2] === 0xff;
export const isPngAt = (b: Uint8Array, o: number) => pngSignature.every((v, i) => b[o + i] === v);

/** Where a JPEG or PNG starts after leading junk (undefined when the bytes start with one, or hold none). */
export function pictureAfterJunk(b: Uint8Array): number | undefined {
  if (isJpegAt(b, 0) || isPngAt(b, 0)) return undefined;
  const end = Math.min(b.length, maxJunkBytes);
  for (let o = 1; o < end; o++) {
    if (b[o] === 0xff ? isJpegAt(b, o) : b[o] === 0x89 && isPngAt(b, o)) return o;
  }
  return undefined;
}

