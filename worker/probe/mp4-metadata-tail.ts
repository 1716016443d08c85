import { ascii, u32be } from "../bytes/read-bytes.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";
import { maxMetadataTailBytes } from "../config/limits.ts";

/**
 * Where an MP4/MOV keeps its capture and rights facts when its moov was not read whole: a moov holds its
 * movie header, then its tracks (most of its bytes: sample tables), then the user data and metadata keys
 * (udta, meta) every writer puts after the tracks. The probe's sparse walk read the header of each top-level
 * box and of each track, so the offset where the tracks end is known from bytes already held: from there to the
 * moov's end is one Range read of a few KiB, whatever the length of the movie. This module plans that read from held bytes only (no request) and packs what it returns.
 */
export interface MetadataTail {
  /** First byte after the moov's last track. */
  offset: number;
  /** Bytes from there to the moov's end. */
  length: number;
  /** The movie header box (mvhd) as held: its creation time is the last resort for takenAt. */
  mvhd?: Uint8Array;
  /** Set when what follows the tracks is over the cap: the facts are left out, this says why. */
  refused?: string;
}

/** Boxes walked at each level before giving up (a moov holds a handful of tracks; real files a few top-level boxes). */
const maxWalkedBoxes = 256;

interface Header { type: string; size: number; headerSize: number }

/** A box header at `o` from held bytes only; undefined when not held or malformed. */
async function heldHeader(source: RangeByteSource, o: number, end: number): Promise<Header | undefined> {
  if (o + 8 > end || !source.holds(o, 16)) return undefined;
  const h = await source.read(o, 16);
  let size = u32be(h, 0) ?? 0;
  let headerSize = 8;
  if (size === 1) {
    size = (u32be(h, 8) ?? 0) * 2 ** 32 + (u32be(h, 12) ?? 0);
    headerSize = 16;
  } else if (size === 0) size = end - o;
  return size >= headerSize ? { type: ascii(h, 4, 4), size, headerSize } : undefined;
}

/**
 * The read that completes an MP4's metadata: undefined when the file has no moov within held headers or when
 * nothing follows its tracks; `refused` when what follows is over `maxMetadataTailBytes` (the facts are left out).
 */
export async function planMetadataTail(source: RangeByteSource): Promise<MetadataTail | undefined> {
  const size = source.size;
  if (size === undefined) return undefined;
  let o = 0;
  for (let i = 0; i < maxWalkedBoxes && o + 8 <= size; i++) {
    const box = await heldHeader(source, o, size);
    if (!box) return undefined;
    if (box.type === "moov") return planInMoov(source, o, Math.min(o + box.size, size), box.headerSize);
    o += box.size;
  }
  return undefined;
}

async function planInMoov(source: RangeByteSource, moovAt: number, moovEnd: number, headerSize: number): Promise<MetadataTail | undefined> {
  let o = moovAt + headerSize;
  let mvhd: Uint8Array | undefined;
  for (let i = 0; i < maxWalkedBoxes && o + 8 <= moovEnd; i++) {
    const box = await heldHeader(source, o, moovEnd);
    // A header not held, or the first box that is not the movie header or a track: the tail starts here.
    if (!box || (box.type !== "mvhd" && box.type !== "trak")) break;
    if (box.type === "mvhd" && source.holds(o, box.size)) mvhd = await source.read(o, box.size);
    o += box.size;
  }
  const length = moovEnd - o;
  if (length <= 0) return undefined;
  if (length > maxMetadataTailBytes) {
    return { offset: o, length, ...(mvhd ? { mvhd } : {}), refused: `mp4 user data: ${length} bytes after the tracks, over ${maxMetadataTailBytes}` };
  }
  return { offset: o, length, ...(mvhd ? { mvhd } : {}) };
}

/** The moov body the user-data reader walks: the movie header (when held) and the boxes of the tail. */
export function moovBodyOf(tail: MetadataTail, bytes: Uint8Array): Uint8Array {
  const mvhd = tail.mvhd ?? new Uint8Array(0);
  const body = new Uint8Array(mvhd.length + bytes.length);
  body.set(mvhd, 0);
  body.set(bytes, mvhd.length);
  return body;
}
