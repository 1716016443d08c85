/**
 * Where a JPEG's metadata segments end: the APPn segments (EXIF and XMP in APP1, ICC in APP2, C2PA in APP11,
 * IPTC in APP13) and comments before the first scan. A camera's EXIF block with its maker notes and preview often
 * runs past the bytes the probe read first; the tags can only be read once the whole block is held. Only the
 * 4-byte marker headers are read, through `read` (bytes already held cost nothing), at most `maxSegments` of them.
 */
const maxSegments = 64;

export async function jpegMetadataEnd(read: (offset: number, length: number) => Promise<Uint8Array>, limit: number): Promise<number> {
  let at = 2;
  let end = 0;
  for (let n = 0; n < maxSegments && at + 4 <= limit; n++) {
    const head = await read(at, 4);
    if (head.length < 4 || head[0] !== 0xff) break;
    const marker = head[1]!;
    // Fill bytes before a marker.
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    // The first scan, the end of the image, or a marker without a length: no metadata follows.
    if (marker === 0xda || marker === 0xd9 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) break;
    const next = at + 2 + ((head[2]! << 8) | head[3]!);
    if ((marker >= 0xe0 && marker <= 0xef) || marker === 0xfe) end = next;
    at = next;
  }
  return Math.min(end, limit);
}
