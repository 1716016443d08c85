import { ascii, u32be } from "../bytes/read-bytes.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";
import { mp4Boxes, mp4Child, type Mp4Parent } from "../../shared/media/mp4-box-reader.ts";

/**
 * Fragmented MP4 (ISO 14496-12 8.8): the moov of an init segment has empty sample tables, so the duration and
 * frame rate live elsewhere. In order of cost: `mehd` in the moov (a declared duration), a `sidx` right after
 * the moov (declared subsegment durations), else the `mfra` index at the end (one suffix read) that points at
 * the last `moof`, whose `tfdt` plus its samples' durations is the end time. The frame rate is the timescale
 * over the first moof's commonest sample duration (or its default). Every box read has a size cap, every table
 * an entry cap: linear, bounded.
 */
const maxIndexBytes = 64 * 1024;
const maxEntries = 4096;

export interface FragmentTiming { durationSeconds?: number; durationFrom?: "header" | "packets-counted"; fps?: number }

type Box = Mp4Parent;

const boxes = (b: Uint8Array, start: number, end: number) => mp4Boxes(b, { start, end });
const child = (b: Uint8Array, parent: Box, type: string) => mp4Child(b, parent, type);
const u64 = (b: Uint8Array, o: number) => (u32be(b, o) ?? 0) * 2 ** 32 + (u32be(b, o + 4) ?? 0);

/** A box at `offset` whose size is capped, read whole; undefined when it is not `type`. */
async function boxAt(source: RangeByteSource, offset: number, type: string): Promise<{ bytes: Uint8Array; box: Box } | undefined> {
  const header = await source.read(offset, 8);
  const size = u32be(header, 0) ?? 0;
  if (ascii(header, 4, 4) !== type || size < 8 || size > maxIndexBytes) return undefined;
  const bytes = await source.read(offset, size);
  return { bytes, box: { type, start: 8, end: bytes.length } };
}

/** A traf's samples for `trackId`: base decode time, count and per-sample durations (or the default one). */
function trafSamples(b: Uint8Array, traf: Box, trackId: number, trexDefault: number): { base?: number; durations: number[] } | undefined {
  const tfhd = child(b, traf, "tfhd");
  if (!tfhd || u32be(b, tfhd.start + 4) !== trackId) return undefined;
  const flags = (u32be(b, tfhd.start) ?? 0) & 0xffffff;
  let o = tfhd.start + 8 + (flags & 1 ? 8 : 0) + (flags & 2 ? 4 : 0);
  const fallback = flags & 8 ? (u32be(b, o) ?? 0) : trexDefault;
  const tfdt = child(b, traf, "tfdt");
  const base = tfdt ? (b[tfdt.start] === 1 ? u64(b, tfdt.start + 4) : u32be(b, tfdt.start + 4)) : undefined;
  const durations: number[] = [];
  for (const trun of boxes(b, traf.start, traf.end)) {
    if (trun.type !== "trun") continue;
    const tflags = (u32be(b, trun.start) ?? 0) & 0xffffff;
    const count = Math.min(u32be(b, trun.start + 4) ?? 0, maxEntries - durations.length);
    const stride = 4 * ((tflags & 0x100 ? 1 : 0) + (tflags & 0x200 ? 1 : 0) + (tflags & 0x400 ? 1 : 0) + (tflags & 0x800 ? 1 : 0));
    o = trun.start + 8 + (tflags & 1 ? 4 : 0) + (tflags & 4 ? 4 : 0);
    for (let i = 0; i < count; i++, o += stride) durations.push(tflags & 0x100 ? (u32be(b, o) ?? 0) : fallback);
  }
  return { base, durations };
}

function commonest(values: number[]): number | undefined {
  const counts = new Map<number, number>();
  let best: number | undefined;
  for (const v of values) {
    if (v <= 0) continue;
    const n = (counts.get(v) ?? 0) + 1;
    counts.set(v, n);
    if (best === undefined || n > counts.get(best)!) best = v;
  }
  return best;
}

/** Duration and fps of a fragmented file's track `trackId` (timescale from its mdhd), reading past the moov. */
export async function readFragmentTiming(source: RangeByteSource, moovEnd: number, trackId: number, timescale: number,
  trexDefault: number, fpsOnly = false): Promise<FragmentTiming> {
  const size = source.size;
  const out: FragmentTiming = {};
  if (size === undefined || timescale <= 0) return out;
  const first = await boxAt(source, moovEnd, "moof").catch(() => undefined);
  const sidx = first ? undefined : await boxAt(source, moovEnd, "sidx").catch(() => undefined);
  const firstMoof = first ?? (sidx ? await boxAt(source, moovEnd + sidx.bytes.length, "moof").catch(() => undefined) : undefined);
  if (firstMoof) {
    for (const traf of boxes(firstMoof.bytes, 8, firstMoof.bytes.length)) {
      const samples = traf.type === "traf" ? trafSamples(firstMoof.bytes, traf, trackId, trexDefault) : undefined;
      const delta = samples && commonest(samples.durations);
      if (delta) out.fps = timescale / delta;
    }
  }
  // A declared duration (mehd) needs no index: the first moof's sample durations were all that was missing.
  if (fpsOnly) return out;
  if (sidx) {
    const b = sidx.bytes;
    const v1 = b[8] === 1;
    const scale = u32be(b, 16) ?? 0;
    const count = Math.min(((u32be(b, v1 ? 36 : 28) ?? 0) & 0xffff), maxEntries);
    let ticks = 0;
    for (let i = 0, o = v1 ? 40 : 32; i < count && o + 12 <= b.length; i++, o += 12) ticks += u32be(b, o + 4) ?? 0;
    if (scale > 0 && ticks > 0) return { ...out, durationSeconds: ticks / scale, durationFrom: "header" };
  }
  // mfra: its last 16 bytes (mfro) give its size; its tfra for the track points at the last moof.
  const mfro = await source.read(size - 16, 16).catch(() => undefined);
  if (!mfro || ascii(mfro, 4, 4) !== "mfro") return out;
  const mfraSize = u32be(mfro, 12) ?? 0;
  const mfra = mfraSize > 16 && mfraSize <= maxIndexBytes ? await boxAt(source, size - mfraSize, "mfra").catch(() => undefined) : undefined;
  if (!mfra) return out;
  let lastMoof: number | undefined;
  for (const tfra of boxes(mfra.bytes, 8, mfra.bytes.length)) {
    const b = mfra.bytes;
    if (tfra.type !== "tfra" || u32be(b, tfra.start + 4) !== trackId) continue;
    const v1 = b[tfra.start] === 1;
    const sizes = u32be(b, tfra.start + 8) ?? 0;
    const entryBytes = (v1 ? 16 : 8) + ((sizes >> 4) & 3) + 1 + ((sizes >> 2) & 3) + 1 + (sizes & 3) + 1;
    const count = Math.min(u32be(b, tfra.start + 12) ?? 0, maxEntries);
    const last = tfra.start + 16 + (count - 1) * entryBytes;
    if (count > 0 && last + entryBytes <= tfra.end) lastMoof = v1 ? u64(b, last + 8) : u32be(b, last + 4);
  }
  const moof = lastMoof !== undefined && lastMoof < size ? await boxAt(source, lastMoof, "moof").catch(() => undefined) : undefined;
  if (!moof) return out;
  for (const traf of boxes(moof.bytes, 8, moof.bytes.length)) {
    const samples = traf.type === "traf" ? trafSamples(moof.bytes, traf, trackId, trexDefault) : undefined;
    if (samples?.base !== undefined) {
      const end = samples.base + samples.durations.reduce((a, d) => a + d, 0);
      if (end > 0) return { ...out, durationSeconds: end / timescale, durationFrom: "packets-counted" };
    }
  }
  return out;
}
