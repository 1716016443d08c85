/**
 * The ICC profile of a JPEG 2000 file, for the picture ffmpeg decodes from it: ffmpeg's PNG has no profile, so
 * a Display P3 or Adobe RGB picture would be shown as if its numbers were sRGB. The profile is read from the JP2
 * header's colour specification box (ISO/IEC 15444-1 I.5.3.3: method 2 restricted ICC, method 3 any ICC) and
 * attached to the PNG as an iCCP chunk (PNG 11.3.3.3), so sharp converts the thumbnail to sRGB as it does for a
 * JPEG or PNG that carries one. A raw codestream (no JP2 boxes) has no profile. Boxes are walked by their sizes,
 * a bounded count; the profile is capped in size.
 */
import { crc32, deflateSync } from "node:zlib";

/** Top-level boxes and boxes inside jp2h walked at most (a JP2 file has a handful of each). */
const maxBoxes = 64;
/** An ICC profile larger than this is not one we attach (display profiles are a few kilobytes). */
export const maxJp2IccBytes = 1024 * 1024;

interface Box { type: string; body: number; end: number }

/** The boxes of b[from, to), in order, at most maxBoxes; a box running past `to` is cut there. */
function boxes(b: Uint8Array, from: number, to: number): Box[] {
  const out: Box[] = [];
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let o = from; o + 8 <= to && out.length < maxBoxes;) {
    let size = view.getUint32(o);
    let header = 8;
    if (size === 1) {
      if (o + 16 > to) break;
      size = view.getUint32(o + 8) * 2 ** 32 + view.getUint32(o + 12);
      header = 16;
    } else if (size === 0) size = to - o;
    if (size < header) break;
    const type = String.fromCharCode(b[o + 4]!, b[o + 5]!, b[o + 6]!, b[o + 7]!);
    const end = Math.min(to, o + size);
    out.push({ type, body: o + header, end });
    o = end;
  }
  return out;
}

/** The ICC profile a JP2 file's header declares, if any (`head`: its first bytes, holding the header box). */
export function jp2IccProfile(head: Uint8Array): Uint8Array | undefined {
  const header = boxes(head, 0, head.length).find((box) => box.type === "jp2h");
  if (!header) return undefined;
  for (const box of boxes(head, header.body, header.end)) {
    if (box.type !== "colr" || box.body + 3 > box.end) continue;
    const method = head[box.body]!;
    if (method !== 2 && method !== 3) continue;
    const icc = head.subarray(box.body + 3, box.end);
    // An ICC profile states its own size in its first four bytes: a body that disagrees is not one.
    const declared = icc.length >= 128 ? new DataView(icc.buffer, icc.byteOffset, 4).getUint32(0) : 0;
    if (declared === icc.length && icc.length <= maxJp2IccBytes) return icc;
  }
  return undefined;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4, 8))), 0);
  return Buffer.concat([head, data, crc]);
}

/** The PNG with an iCCP chunk holding `icc` right after its IHDR (where PNG requires it, before PLTE and IDAT). */
export function pngWithIccProfile(png: Buffer, icc: Uint8Array): Buffer {
  const ihdrEnd = 8 + 8 + 13 + 4;
  if (png.length < ihdrEnd || png.toString("latin1", 12, 16) !== "IHDR") return png;
  const body = Buffer.concat([Buffer.from("ICC profile\0\0", "latin1"), deflateSync(icc)]);
  return Buffer.concat([png.subarray(0, ihdrEnd), chunk("iCCP", body), png.subarray(ihdrEnd)]);
}
