import type { RangeByteSource } from "../../bytes/byte-source.ts";

/**
 * A TIFF's or BigTIFF's first IFD wherever it is (writers such as ffmpeg put it after the image data, past any
 * head): one bounded read at the offset the header gives, its entries whose values are inline (the size, the
 * photometric interpretation, the extra samples) re-packed as a classic TIFF whose header points at them. Entries
 * whose values live elsewhere in the file are left out rather than pointed at bytes not held.
 */

/** IFD entries read at most (real first IFDs have 10-30; the read stays one small window). */
const maxTiffEntries = 512;

interface Layout { big: boolean; le: boolean; headerBytes: number; countBytes: number; entryBytes: number; inlineBytes: number }

/** Bytes per value of each TIFF field type (TIFF 6.0 section 2, BigTIFF's LONG8/SLONG8/IFD8). */
const typeBytes: Readonly<Record<number, number>> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8 };

function layoutOf(h: Uint8Array): Layout | undefined {
  const order = String.fromCharCode(h[0] ?? 0, h[1] ?? 0);
  if (order !== "II" && order !== "MM") return undefined;
  const le = order === "II";
  const version = le ? (h[2] ?? 0) | ((h[3] ?? 0) << 8) : ((h[2] ?? 0) << 8) | (h[3] ?? 0);
  if (version === 42) return { big: false, le, headerBytes: 8, countBytes: 2, entryBytes: 12, inlineBytes: 4 };
  if (version === 43) return { big: true, le, headerBytes: 16, countBytes: 8, entryBytes: 20, inlineBytes: 8 };
  return undefined;
}

export function isTiff(head: Uint8Array): boolean {
  return layoutOf(head) !== undefined;
}

/** The header and first IFD as a small TIFF of the same byte order and flavour; the held prefix if it holds the IFD. */
export async function tiffHeaderBytes(source: RangeByteSource, guard: () => void): Promise<Uint8Array> {
  const held = source.prefix();
  const layout = layoutOf(held);
  if (!layout) throw new Error("not a TIFF");
  const view = new DataView(held.buffer, held.byteOffset, held.byteLength);
  const ifd = layout.big ? Number(view.getBigUint64(8, layout.le)) : view.getUint32(4, layout.le);
  if (!Number.isSafeInteger(ifd) || ifd < layout.headerBytes) throw new Error("TIFF: invalid IFD offset");
  guard();
  // The count and the bounded entries in one read (the source's minimum read holds a usual IFD whole).
  const countBytes = await source.read(ifd, layout.countBytes);
  if (countBytes.length < layout.countBytes) throw new Error("TIFF: the file ends before its IFD");
  const cv = new DataView(countBytes.buffer, countBytes.byteOffset, countBytes.byteLength);
  const count = Math.min(maxTiffEntries, layout.big ? Number(cv.getBigUint64(0, layout.le)) : cv.getUint16(0, layout.le));
  const ifdEnd = ifd + layout.countBytes + count * layout.entryBytes;
  if (ifdEnd <= held.byteLength) return held;
  guard();
  const entries = await source.read(ifd + layout.countBytes, count * layout.entryBytes);
  const ev = new DataView(entries.buffer, entries.byteOffset, entries.byteLength);
  // Re-packed as a classic TIFF whatever the flavour, so the one set of readers (image-size, tiffColorFacts) reads it.
  const kept: Uint8Array[] = [];
  for (let o = 0; o + layout.entryBytes <= entries.byteLength && kept.length < maxTiffEntries; o += layout.entryBytes) {
    const entry = classicEntry(ev, o, layout);
    if (entry) kept.push(entry);
  }
  const out = new Uint8Array(8 + 2 + kept.length * 12 + 4);
  const w = new DataView(out.buffer);
  out.set(held.subarray(0, 2));
  w.setUint16(2, 42, layout.le);
  w.setUint32(4, 8, layout.le);
  w.setUint16(8, kept.length, layout.le);
  kept.forEach((entry, i) => out.set(entry, 10 + i * 12));
  return out; // the next-IFD offset stays 0: one image
}

/** A 12-byte classic entry for the entry at `o` when its value is inline there (BigTIFF's 8-byte integers narrowed). */
function classicEntry(v: DataView, o: number, layout: Layout): Uint8Array | undefined {
  const tag = v.getUint16(o, layout.le);
  let type = v.getUint16(o + 2, layout.le);
  const count = layout.big ? Number(v.getBigUint64(o + 4, layout.le)) : v.getUint32(o + 4, layout.le);
  const size = typeBytes[type];
  if (size === undefined || count * size > layout.inlineBytes) return undefined;
  const valueAt = o + (layout.big ? 12 : 8);
  const out = new Uint8Array(12);
  const w = new DataView(out.buffer);
  w.setUint16(0, tag, layout.le);
  w.setUint32(4, count, layout.le);
  if (count * size <= 4) {
    // Inline values are left-justified in the field in either byte order: the first 4 bytes are the value.
    out.set(new Uint8Array(v.buffer, v.byteOffset + valueAt, 4), 8);
  } else if (count === 1 && (type === 16 || type === 18)) {
    const value = v.getBigUint64(valueAt, layout.le);
    if (value > 0xffffffffn) return undefined;
    type = type === 16 ? 4 : 13; // LONG8 to LONG, IFD8 to IFD
    w.setUint32(8, Number(value), layout.le);
  } else return undefined;
  w.setUint16(2, type, layout.le);
  return out;
}
