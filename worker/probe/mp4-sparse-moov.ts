/**
 * The moov of a large file walked sparsely through the byte source: only the boxes parseMoov (mp4-boxes.ts)
 * reads are fetched, re-packed as a moov body of the same nesting.
 */
import { u32be } from "../bytes/read-bytes.ts";
import { mp4MaxBoxDepth } from "../../shared/limits.ts";
import { readBoxHeader } from "../../shared/media/mp4-box-reader.ts";
import { concatBytes } from "../../shared/bytes/concat-bytes.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";

/**
 * Bytes fetched at a box header not held yet while walking a moov: one request then holds the header boxes that
 * follow it (a trak's tkhd, mdhd, hdlr, stsd and stts take 500-900 bytes in ffmpeg's and cameras' files).
 */
export const moovWindowBytes = 2 * 1024;
/**
 * The children parseMoov reads in each box it walks into, leaves (read whole) and containers (walked). A walk
 * stops inside a box once all of them are found, so the sample tables after them are never even looked at.
 */
const wantedChildren: Readonly<Record<string, ReadonlySet<string>>> = {
  moov: new Set(["mvhd", "trak", "pssh"]),
  trak: new Set(["tkhd", "edts", "mdia"]),
  edts: new Set(["elst"]),
  mdia: new Set(["mdhd", "hdlr", "minf"]),
  minf: new Set(["stbl"]),
  stbl: new Set(["stsd", "stts"]),
};
const containerBoxes: ReadonlySet<string> = new Set(Object.keys(wantedChildren));
/** Boxes and requests one walk may take (its nesting is that of wantedChildren: trak > mdia > minf > stbl). */
const maxSparseBoxes = 1024;
const maxSparseRequests = 24;

interface SparseWalk { boxes: number; requestsBefore: number; traks: number; maxTraks: number }

/** The moov's body through a sparse walk; a moov whose walk would take too many boxes or requests is read whole. */
export async function sparseMoov(source: RangeByteSource, offset: number, headerSize: number, end: number): Promise<Uint8Array> {
  const walk: SparseWalk = { boxes: 0, requestsBefore: source.extraRequests, traks: 0, maxTraks: Infinity };
  const body = await sparseBoxes(source, "moov", offset + headerSize, end, 0, walk).catch(() => undefined);
  return body ?? (await source.read(offset, end - offset)).subarray(headerSize);
}

/**
 * The body of `parent` with only what parseMoov reads: containers walked child by child through the byte source,
 * the leaves it parses read whole, the rest (sample tables, edit lists, user data) skipped without being fetched.
 * Returned re-packed as boxes of the same nesting, with 32-bit sizes, so parseMoov reads it as it reads a whole moov.
 */
async function sparseBoxes(source: RangeByteSource, parent: string, start: number, end: number, depth: number, walk: SparseWalk): Promise<Uint8Array> {
  const wanted = wantedChildren[parent]!;
  const found = new Set<string>();
  const parts: Uint8Array[] = [];
  let o = start;
  while (o + 8 <= end) {
    // Everything this box's parser reads is in hand: what follows is sample tables (or, in moov, no more traks).
    if (parent === "moov" ? walk.traks >= walk.maxTraks : found.size === wanted.size) break;
    if (++walk.boxes > maxSparseBoxes || source.extraRequests - walk.requestsBefore > maxSparseRequests) {
      throw new Error("moov walk: too many boxes or requests");
    }
    const h = await source.read(o, 16, moovWindowBytes);
    const box = readBoxHeader(h, 0, end - o);
    if (!box) break;
    const { type, size: boxSize, headerSize } = box;
    const boxEnd = Math.min(o + boxSize, end);
    let body: Uint8Array | undefined;
    if (wanted.has(type)) {
      found.add(type);
      if (containerBoxes.has(type) && depth < mp4MaxBoxDepth) body = await sparseBoxes(source, type, o + headerSize, boxEnd, depth + 1, walk);
      else if (!containerBoxes.has(type)) body = await source.read(o + headerSize, boxEnd - (o + headerSize), moovWindowBytes);
      if (type === "trak") walk.traks += 1;
      // Track IDs are distinct and below mvhd's next_track_ID, so there are at most next_track_ID - 1 traks.
      if (type === "mvhd" && body) walk.maxTraks = nextTrackId(body) - 1;
    }
    if (body) {
      const header = new Uint8Array(8);
      new DataView(header.buffer).setUint32(0, 8 + body.length);
      for (let c = 0; c < 4; c++) header[4 + c] = type.charCodeAt(c);
      parts.push(header, body);
    }
    o += boxSize;
  }
  return concatBytes(parts);
}

/** mvhd's next_track_ID (after 96 bytes of version 0 fields, 108 of version 1); Infinity when absent or unset. */
function nextTrackId(mvhd: Uint8Array): number {
  const next = u32be(mvhd, mvhd[0] === 1 ? 108 : 96);
  return next && next !== 0xffffffff ? next : Infinity;
}
