/**
 * Where the keyframes of an MP4/MOV video track are, from its sample tables (ISO/IEC 14496-12 8.6-8.7): stss
 * (which samples are sync samples), stts and ctts (their times), elst (the presentation shift), and stsc,
 * stsz and stco/co64 (their byte offsets and sizes). The storyboard uses it to read only the keyframes it
 * shows, by byte range (storyboard.ts).
 *
 * Bounded work on untrusted tables: the moov is a Buffer of at most maxMoovBytes; boxes are walked iteratively
 * along fixed paths (no recursion); every table's entry count is checked against its box's size before it is
 * read; the work is linear in the tables' entries plus the picked samples times their chunk's sample count
 * (capped). Anything unexpected throws Mp4IndexError and the caller takes the general path.
 */

import { mp4MaxTopLevelBoxes } from "../../../shared/limits.ts";
import {
  exactMp4Boxes, firstMp4Box, Mp4BoxError as Mp4IndexError, mp4Child, mp4Path, readBoxHeader, type Mp4Box, type Mp4Parent,
} from "../../../shared/media/mp4-box-reader.ts";

/** A moov larger than this is not indexed here (the storyboard's general path handles the file). */
export const maxMoovBytes = 16 * 1024 * 1024;
/** A file without stss declares every sample a sync sample (intra-only): walked up to this many samples. */
const maxAllSyncSamples = 1_000_000;
/** Samples summed to find a sample's offset inside its chunk. */
const maxSamplesPerChunk = 100_000;

/**
 * Where the top-level moov ends (exclusive), when the file's first bytes reach its box header: the boxes before
 * it (ftyp, free, ...) are skipped by their sizes. Undefined when the head ends first (a moov after the mdat),
 * the bytes are not MP4 boxes, or the moov is larger than maxMoovBytes. Linear in the boxes walked (at most
 * mp4MaxTopLevelBoxes).
 */
export function moovEndFromHead(head: Buffer, fileSize: number): number | undefined {
  if (head.length < 8 || head.toString("latin1", 4, 8) !== "ftyp") return undefined;
  let pos = 0;
  for (let i = 0; i < mp4MaxTopLevelBoxes && pos + 16 <= head.length; i++) {
    const box = readBoxHeader(head, pos, fileSize);
    if (!box || pos + box.size > fileSize) return undefined;
    if (box.type === "moov") return box.size <= maxMoovBytes ? pos + box.size : undefined;
    pos += box.size;
  }
  return undefined;
}

/** The sample tables do not add up (or their boxes do not): the caller takes the general path. */
export { Mp4IndexError };

export type KeyframeCodec = "h264" | "hevc";

export interface Keyframe {
  /** 1-based sample number. */
  sample: number;
  /** Presentation time in seconds (edit list applied). */
  time: number;
  offset: number;
  size: number;
}

export interface KeyframeSelection {
  codec: KeyframeCodec;
  /** The sample entry's decoder configuration record (avcC or hvcC body). */
  config: Buffer;
  /** Distinct keyframes picked, in file order. */
  keyframes: Keyframe[];
  /** For each asked time, the index in `keyframes` of the keyframe nearest to it. */
  pick: number[];
}

export type Box = Mp4Box;

/** Boxes read exactly: a box that overruns its parent, or a walk cut short, throws (shared/media/mp4-box-reader.ts). */
const exact = { exact: true } as const;
const child = (buf: Buffer, parent: Mp4Parent, type: string, from?: number) => mp4Child(buf, parent, type, { from, exact: true });
const path = (buf: Buffer, parent: Mp4Parent, types: readonly string[]) => mp4Path(buf, parent, types, exact);

/** A full box's table: entry count at body+offset, entries after it, each entrySize bytes, all inside the box. */
function table(buf: Buffer, box: Box, countAt: number, entrySize: number): { count: number; first: number } {
  if (box.start + countAt + 4 > box.end) throw new Mp4IndexError(`${box.type} truncated`);
  const count = buf.readUInt32BE(box.start + countAt);
  const first = box.start + countAt + 4;
  if (count > (box.end - first) / entrySize) throw new Mp4IndexError(`${box.type} declares more entries than it holds`);
  return { count, first };
}

const videoEntries: Readonly<Record<string, { codec: KeyframeCodec; config: string }>> = {
  avc1: { codec: "h264", config: "avcC" },
  avc3: { codec: "h264", config: "avcC" },
  hvc1: { codec: "hevc", config: "hvcC" },
  hev1: { codec: "hevc", config: "hvcC" },
};

/** VisualSampleEntry fields before its child boxes: 6 reserved + data_reference_index + 70 bytes. */
const visualSampleEntryBytes = 78;

export interface VideoTrack {
  codec: KeyframeCodec;
  config: Buffer;
  timescale: number;
  /** Seconds added to (composition time / timescale) to get the presentation time. */
  shift: number;
  stbl: Box;
}

/** The first video track whose sample entry is H.264 or HEVC (the one ffprobe reports first). */
function videoTrack(buf: Buffer, moov: Mp4Parent): VideoTrack | undefined {
  const mvhd = child(buf, moov, "mvhd");
  if (!mvhd || mvhd.start + 24 > mvhd.end) throw new Mp4IndexError("no mvhd");
  const movieTimescale = buf.readUInt32BE(mvhd.start + (buf[mvhd.start] === 1 ? 20 : 12));
  for (const trak of exactMp4Boxes(buf, moov)) {
    if (trak.type !== "trak") continue;
    const mdia = child(buf, trak, "mdia");
    const hdlr = mdia && child(buf, mdia, "hdlr");
    if (!mdia || !hdlr || hdlr.start + 12 > hdlr.end || buf.toString("latin1", hdlr.start + 8, hdlr.start + 12) !== "vide") continue;
    const stbl = path(buf, mdia, ["minf", "stbl"]);
    const stsd = stbl && child(buf, stbl, "stsd");
    if (!stbl || !stsd || stsd.start + 8 > stsd.end) continue;
    const entry = firstMp4Box(buf, stsd, { from: stsd.start + 8, exact: true });
    const known = entry ? videoEntries[entry.type] : undefined;
    if (!entry || !known) return undefined; // the first video track is not one this reader decodes
    const configBox = entry.start + visualSampleEntryBytes <= entry.end
      ? child(buf, entry, known.config, entry.start + visualSampleEntryBytes)
      : undefined;
    if (!configBox) throw new Mp4IndexError(`no ${known.config}`);
    const mdhd = child(buf, mdia, "mdhd");
    if (!mdhd || mdhd.start + 24 > mdhd.end) throw new Mp4IndexError("no mdhd");
    const timescale = buf.readUInt32BE(mdhd.start + (buf[mdhd.start] === 1 ? 20 : 12));
    if (timescale === 0) throw new Mp4IndexError("zero timescale");
    return { codec: known.codec, config: Buffer.from(buf.subarray(configBox.start, configBox.end)), timescale, shift: editShift(buf, trak, movieTimescale, timescale), stbl };
  }
  return undefined;
}

/** Leading empty edits delay the track; the first media edit's media_time is where presentation starts. */
function editShift(buf: Buffer, trak: Box, movieTimescale: number, timescale: number): number {
  const elst = path(buf, trak, ["edts", "elst"]);
  if (!elst || elst.start + 8 > elst.end) return 0;
  const v1 = buf[elst.start] === 1;
  const { count, first } = table(buf, elst, 4, v1 ? 20 : 12);
  let empty = 0;
  for (let i = 0; i < Math.min(count, 16); i++) {
    const at = first + i * (v1 ? 20 : 12);
    const duration = v1 ? Number(buf.readBigUInt64BE(at)) : buf.readUInt32BE(at);
    const mediaTime = v1 ? Number(buf.readBigInt64BE(at + 8)) : buf.readInt32BE(at + 4);
    if (mediaTime === -1) {
      empty += movieTimescale > 0 ? duration / movieTimescale : 0;
      continue;
    }
    return empty - mediaTime / timescale;
  }
  return empty;
}

/** Iterates runs of (count, value) tables (stts, ctts) by sample number, forwards only. */
class RunCursor {
  private entry = 0;
  private entryFirst = 1; // sample number the current entry starts at
  private base = 0; // sum of values up to entryFirst (stts: the dts of entryFirst)
  constructor(private readonly buf: Buffer, private readonly first: number, private readonly count: number, private readonly signed: boolean) {}
  private at(i: number): [number, number] {
    const o = this.first + i * 8;
    return [this.buf.readUInt32BE(o), this.signed ? this.buf.readInt32BE(o + 4) : this.buf.readUInt32BE(o + 4)];
  }
  /** stts: decode time of `sample` (in timescale units); samples must come in increasing order. */
  timeOf(sample: number): number {
    for (;;) {
      if (this.entry >= this.count) throw new Mp4IndexError("sample past the time table");
      const [n, delta] = this.at(this.entry);
      if (sample < this.entryFirst + n) return this.base + (sample - this.entryFirst) * delta;
      this.base += n * delta;
      this.entryFirst += n;
      this.entry++;
    }
  }
  /** ctts: the value of the run holding `sample` (0 past the table). */
  valueOf(sample: number): number {
    for (;;) {
      if (this.entry >= this.count) return 0;
      const [n, value] = this.at(this.entry);
      if (sample < this.entryFirst + n) return value;
      this.entryFirst += n;
      this.entry++;
    }
  }
}

/** A video track's sample tables, checked and ready to read (shared by the keyframe and tile-frame readers). */
export interface SampleTables {
  buf: Buffer;
  track: VideoTrack;
  sampleCount: number;
  sizeOf: (sample: number) => number;
  stts: { count: number; first: number };
  ctts: { count: number; first: number } | undefined;
  stss: { count: number; first: number } | undefined;
  syncCount: number;
  stsc: Box;
  stco: Box;
}

/** Undefined when the file has no H.264/HEVC video track or holds its samples in fragments (moof). */
export function openSampleTables(moovBytes: Buffer): SampleTables | undefined {
  if (moovBytes.length > maxMoovBytes) throw new Mp4IndexError("moov too large");
  if (moovBytes.length < 16 || moovBytes.toString("latin1", 4, 8) !== "moov") throw new Mp4IndexError("not a moov");
  const moov: Mp4Parent = { type: "moov", start: moovBytes.readUInt32BE(0) === 1 ? 16 : 8, end: moovBytes.length };
  const buf = moovBytes;
  const track = videoTrack(buf, moov);
  if (!track) return undefined;
  const { stbl } = track;
  const stts = child(buf, stbl, "stts");
  const stsc = child(buf, stbl, "stsc");
  const stsz = child(buf, stbl, "stsz");
  const stco = child(buf, stbl, "stco") ?? child(buf, stbl, "co64");
  if (!stts || !stsc || !stsz || !stco) throw new Mp4IndexError("incomplete sample tables");
  if (stsz.start + 12 > stsz.end) throw new Mp4IndexError("stsz truncated");
  const constantSize = buf.readUInt32BE(stsz.start + 4);
  const sampleCount = buf.readUInt32BE(stsz.start + 8);
  if (sampleCount === 0) return undefined; // fragmented: the samples are in moofs
  if (constantSize === 0) table(buf, stsz, 8, 4);
  const sizeOf = (sample: number) => constantSize !== 0 ? constantSize : buf.readUInt32BE(stsz.start + 12 + (sample - 1) * 4);
  const cttsBox = child(buf, stbl, "ctts");
  const stssBox = child(buf, stbl, "stss");
  const stss = stssBox ? table(buf, stssBox, 4, 4) : undefined;
  const syncCount = stss ? stss.count : sampleCount;
  if (!stss && sampleCount > maxAllSyncSamples) throw new Mp4IndexError("too many samples to walk without stss");
  if (syncCount === 0) throw new Mp4IndexError("no sync samples");
  return {
    buf, track, sampleCount, sizeOf, stts: table(buf, stts, 4, 8), ctts: cttsBox ? table(buf, cttsBox, 4, 8) : undefined,
    stss, syncCount, stsc, stco,
  };
}

/** Presentation times (seconds) of samples asked for in increasing order: one forward pass over stts and ctts. */
export function presentationClock(tables: SampleTables): (sample: number) => number {
  const { buf, track } = tables;
  const times = new RunCursor(buf, tables.stts.first, tables.stts.count, false);
  const offsets = tables.ctts ? new RunCursor(buf, tables.ctts.first, tables.ctts.count, true) : undefined;
  return (sample) => (times.timeOf(sample) + (offsets?.valueOf(sample) ?? 0)) / track.timescale + track.shift;
}

/** The k-th (0-based) sync sample's number. */
export function syncSample(tables: SampleTables, k: number): number {
  return tables.stss ? tables.buf.readUInt32BE(tables.stss.first + k * 4) : k + 1;
}

/**
 * Byte offset and size of each of `samples` (ascending sample numbers): one pass over stsc's runs and the chunks
 * holding them; consecutive samples of one chunk follow each other, so a run of samples costs one step each.
 */
export function sampleRanges(tables: SampleTables, samples: readonly number[], fileSize: number | undefined): Array<{ offset: number; size: number }> {
  const { buf, stsc, stco, sizeOf } = tables;
  const stscTable = table(buf, stsc, 4, 12);
  const co64 = stco.type === "co64";
  const chunkTable = table(buf, stco, 4, co64 ? 8 : 4);
  const chunkOffset = (chunk: number) => co64 ? Number(buf.readBigUInt64BE(chunkTable.first + (chunk - 1) * 8)) : buf.readUInt32BE(chunkTable.first + (chunk - 1) * 4);
  const out: Array<{ offset: number; size: number }> = new Array(samples.length);
  let runFirstSample = 1;
  let w = 0;
  let previous: { sample: number; chunk: number; offset: number; size: number } | undefined;
  for (let r = 0; r < stscTable.count && w < samples.length; r++) {
    const at = stscTable.first + r * 12;
    const firstChunk = buf.readUInt32BE(at);
    const perChunk = buf.readUInt32BE(at + 4);
    const nextFirst = r + 1 < stscTable.count ? buf.readUInt32BE(at + 12) : chunkTable.count + 1;
    if (firstChunk === 0 || nextFirst <= firstChunk || nextFirst > chunkTable.count + 1 || perChunk === 0) throw new Mp4IndexError("invalid stsc");
    if (perChunk > maxSamplesPerChunk) throw new Mp4IndexError("too many samples in a chunk");
    const runSamples = (nextFirst - firstChunk) * perChunk;
    while (w < samples.length && samples[w]! < runFirstSample + runSamples) {
      const sample = samples[w]!;
      if (previous && sample <= previous.sample) throw new Mp4IndexError("samples out of order");
      const inRun = sample - runFirstSample;
      const chunk = firstChunk + Math.floor(inRun / perChunk);
      let offset: number;
      if (previous && previous.chunk === chunk && previous.sample === sample - 1) offset = previous.offset + previous.size;
      else {
        offset = chunkOffset(chunk);
        for (let s = sample - (inRun % perChunk); s < sample; s++) offset += sizeOf(s);
      }
      const size = sizeOf(sample);
      if (size === 0 || (fileSize !== undefined && offset + size > fileSize)) throw new Mp4IndexError("sample outside the file");
      out[w] = { offset, size };
      previous = { sample, chunk, offset, size };
      w++;
    }
    runFirstSample += runSamples;
  }
  if (w < samples.length) throw new Mp4IndexError("sample past the chunk table");
  return out;
}

/**
 * The keyframe nearest to each of `times` (seconds, ascending; ties go to the earlier keyframe), with its byte
 * range. Undefined when the file has no H.264/HEVC video track or holds its samples in fragments (moof).
 */
export function selectKeyframes(moovBytes: Buffer, times: readonly number[], fileSize: number | undefined,
  choose: "nearest" | "at-or-before" = "nearest"): KeyframeSelection | undefined {
  const tables = openSampleTables(moovBytes);
  if (!tables) return undefined;
  const { track, sampleCount, syncCount } = tables;
  const ptsOf = presentationClock(tables);

  // Two pointers: tile j takes the nearer of the last keyframe at or before it and the first one after it
  // (at-or-before: the former, when there is one).
  const pickedSample: number[] = new Array(times.length);
  const pickedTime: number[] = new Array(times.length);
  let previous: { sample: number; time: number } | undefined;
  let j = 0;
  let lastSample = 0;
  for (let k = 0; k < syncCount && j < times.length; k++) {
    const sample = syncSample(tables, k);
    if (sample <= lastSample || sample > sampleCount) throw new Mp4IndexError("stss out of order or past the samples");
    lastSample = sample;
    const time = ptsOf(sample);
    while (j < times.length && times[j]! < time) {
      const useNext = !previous || (choose === "nearest" && time - times[j]! < times[j]! - previous.time);
      const chosen = useNext ? { sample, time } : previous!;
      pickedSample[j] = chosen.sample;
      pickedTime[j] = chosen.time;
      j++;
    }
    previous = { sample, time };
  }
  for (; j < times.length; j++) {
    pickedSample[j] = previous!.sample;
    pickedTime[j] = previous!.time;
  }

  // Distinct samples in order, then their offsets.
  const distinct = [...new Set(pickedSample)].sort((a, b) => a - b);
  const ranges = sampleRanges(tables, distinct, fileSize);
  const offsets = new Map(distinct.map((sample, i) => [sample, ranges[i]!]));

  const keyframes: Keyframe[] = distinct.map((sample) => ({ sample, time: pickedTime[pickedSample.indexOf(sample)]!, ...offsets.get(sample)! }));
  keyframes.sort((a, b) => a.offset - b.offset);
  const index = new Map(keyframes.map((k, i) => [k.sample, i]));
  return { codec: track.codec, config: track.config, keyframes, pick: pickedSample.map((s) => index.get(s)!) };
}
