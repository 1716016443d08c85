import { ascii, u32be } from "../bytes/read-bytes.ts";
import { mp4MaxTopLevelBoxes } from "../../shared/limits.ts";
import { firstMp4Box, readBoxHeader, mp4Boxes, mp4Child, mp4Path, type Mp4Box as Box, type Mp4Parent } from "../../shared/media/mp4-box-reader.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";
import { readFragmentTiming } from "./mp4-fragments.ts";
import type { TrackFacts } from "../../shared/shapes/tracks.ts";
import { originalFormat, quickTimeChapters, readMp4TrackFacts } from "./mp4-tracks.ts";
import { moovWindowBytes, sparseMoov } from "./mp4-sparse-moov.ts";
import { codecNames, readAudioEntry, readVisualEntry } from "./mp4-sample-entries.ts";
import type { Mp4Track } from "./mp4-track.ts";
import { editSpan, readEditList, tracksSpanSeconds } from "./mp4-edit-list.ts";
import { isPictureCodec } from "./mp4-object-types.ts";

export type { Mp4Track };

export interface Mp4Facts {
  /** moov before mdat at the top level. */
  faststart?: boolean;
  durationSeconds?: number;
  /** How the duration was found: mvhd/mehd declare it, the last moof's samples count it (fragmented files). */
  durationFrom?: "header" | "packets-counted";
  /** An mvex without mehd: the moov's own duration covers only the samples it holds (none, or the first fragment's). */
  fragmentsUndeclared?: boolean;
  /**
   * "init": an initialization segment (ftyp + moov and nothing after it, no mdat before it): tracks and codecs,
   * no samples, so no duration and no frames; its media segments are other files.
   */
  segment?: "init";
  tracks: Mp4Track[];
  /** Languages, dispositions, kinds, chapters and encryption of the tracks (mp4-tracks.ts). */
  trackFacts?: TrackFacts;
  /** The moov's body when it was read whole (its user data and metadata keys are in it); a sparse walk skips them. */
  moov?: Uint8Array;
}

/** A moov larger than this is not read at the edge (the runner's ffprobe does it). */
const maxMoovBytes = 4 * 1024 * 1024;
/**
 * A moov (or a file's tail) with at most this many bytes not yet held is read in one request. A larger one is
 * walked: the boxes parseMoov reads sit at the front of each trak, before its sample tables, which are most of a
 * moov (a 20 s 720p file: 700 bytes of headers per trak, 9-13 KB of tables).
 */
const wholeReadBytes = 4 * 1024;
/**
 * What is left of the file after an mdat is read in one request when at most this many of its bytes are not
 * held yet (the suffix sent with the head holds the last 32 KiB of a file named .mp4): there the moov of a
 * moov-last file starts and (as writers put it last) ends, so its offset and size are known from the mdat's
 * header and the file's size, and one read replaces a window at its header and one at each further trak, each
 * a round trip on a distant origin. A larger tail is walked (bytes over round trips).
 */
const wholeTailAfterMdatBytes = 64 * 1024;

/** Walks the top-level boxes through the byte source and parses `moov`. Undefined if there is none to read. */
export async function readMp4(source: RangeByteSource): Promise<Mp4Facts | undefined> {
  const size = source.size;
  if (size === undefined) return undefined;
  let offset = 0;
  let mdatAt: number | undefined;
  for (let i = 0; i < mp4MaxTopLevelBoxes && offset + 8 <= size; i++) {
    // The last boxes of a file, when their header is not held yet and they are small: read all that is left in
    // one request. Otherwise a window at the header (a moov's mvhd and first trak's headers land in it).
    // Past an mdat, the suffix sent with the head may hold part of what is left: wait for it before planning.
    if (mdatAt !== undefined && !source.holds(offset, 16)) await source.settled();
    const wholeTail = !source.holds(offset, 16) &&
      (size - offset <= wholeReadBytes || (mdatAt !== undefined && source.missingBytes(offset, size - offset) <= wholeTailAfterMdatBytes));
    const header = wholeTail ? (await source.read(offset, size - offset)).subarray(0, 16) : await source.read(offset, 16, moovWindowBytes);
    const box = readBoxHeader(header, 0, size - offset); // size 0: to the end of the file
    if (!box) return undefined;
    const { type, size: boxSize, headerSize } = box;
    if (type === "mdat") mdatAt ??= offset;
    if (type === "moov") {
      if (boxSize > maxMoovBytes) return undefined;
      const end = Math.min(offset + boxSize, size); // a truncated file may end inside its moov: parse what is there
      // A moov held or nearly held is read whole; otherwise only the boxes the parser reads are fetched.
      const whole = source.missingBytes(offset, end - offset) <= wholeReadBytes;
      const body = whole
        ? (await source.read(offset, end - offset)).subarray(headerSize)
        : await sparseMoov(source, offset, headerSize, end);
      const facts = parseMoov(body);
      // A fragmented moov (mvex) with nothing after it and no mdat before it: no sample anywhere in the file, an
      // initialization segment. (A plain moov without its mdat is a cut file, not a segment.)
      const fragmented = mp4Child(body, { start: 0, end: body.length }, "mvex") !== undefined;
      if (fragmented && mdatAt === undefined && offset + boxSize >= size && facts.tracks.length > 0) {
        const { durationSeconds: _none, durationFrom: _from, fragmentsUndeclared: _open, ...init } = facts;
        return { ...init, segment: "init", faststart: true };
      }
      await completeFragmented(source, facts, offset + boxSize);
      // No chpl: the QuickTime chapter track's samples are the chapters (.mov files have only those).
      if (facts.trackFacts && !facts.trackFacts.chapters) {
        const chapters = await quickTimeChapters(source, body).catch(() => []);
        if (chapters.length > 0) facts.trackFacts.chapters = chapters;
      }
      return { ...facts, faststart: mdatAt === undefined, ...(whole ? { moov: body } : {}) };
    }
    offset += boxSize;
  }
  return undefined;
}

/** A full box's (version, timescale, duration) as mvhd and mdhd lay them out. */
function timing(b: Uint8Array, box: Box): number | undefined {
  const v1 = b[box.start] === 1;
  const timescale = u32be(b, box.start + (v1 ? 20 : 12));
  const duration = v1
    ? (u32be(b, box.start + 24) ?? 0) * 2 ** 32 + (u32be(b, box.start + 28) ?? 0)
    : u32be(b, box.start + 16);
  return timescale && duration !== undefined && duration !== 0xffffffff ? duration / timescale : undefined;
}

function s32(b: Uint8Array, o: number): number {
  return (u32be(b, o) ?? 0) | 0;
}

function parseMoov(b: Uint8Array): Omit<Mp4Facts, "faststart"> {
  const moov: Mp4Parent = { start: 0, end: b.length };
  const mvhd = mp4Child(b, moov, "mvhd");
  const tracks: Mp4Track[] = [];
  for (const trak of mp4Boxes(b, moov)) {
    if (trak.type !== "trak") continue;
    tracks.push(parseTrak(b, trak, mvhd ? u32be(b, mvhd.start + (b[mvhd.start] === 1 ? 20 : 12)) ?? 0 : 0));
  }
  let durationSeconds = mvhd ? timing(b, mvhd) : undefined;
  // No movie duration (zero or absent) in an unfragmented file: the span of its tracks, edits applied.
  if (!durationSeconds && !mp4Child(b, moov, "mvex")) durationSeconds = tracksSpanSeconds(tracks);
  let fragmentsUndeclared = false;
  // mvex: a fragmented file. mehd declares its whole duration (in the movie timescale); trex the samples' default.
  const mvex = mp4Child(b, moov, "mvex");
  if (mvex) {
    const mehd = mp4Child(b, mvex, "mehd");
    const scale = mvhd ? u32be(b, mvhd.start + (b[mvhd.start] === 1 ? 20 : 12)) ?? 0 : 0;
    const ticks = mehd ? (b[mehd.start] === 1 ? (u32be(b, mehd.start + 4) ?? 0) * 2 ** 32 + (u32be(b, mehd.start + 8) ?? 0) : u32be(b, mehd.start + 4) ?? 0) : 0;
    if (scale > 0 && ticks > 0) durationSeconds = ticks / scale;
    else fragmentsUndeclared = true;
    for (const trex of mp4Boxes(b, mvex)) {
      const track = trex.type === "trex" ? tracks.find((t) => t.trackId === u32be(b, trex.start + 4)) : undefined;
      if (track) track.defaultSampleDuration = u32be(b, trex.start + 12);
    }
  }
  const trackFacts = readMp4TrackFacts(b, tracks);
  return { ...(durationSeconds ? { durationSeconds, durationFrom: "header" as const } : {}), ...(fragmentsUndeclared ? { fragmentsUndeclared } : {}), tracks, trackFacts };
}

/**
 * A fragmented file (empty sample tables): duration and frame rate from its sidx, mfra and moofs
 * (mp4-fragments.ts), for the first video track, else the first audio one.
 */
async function completeFragmented(source: RangeByteSource, facts: Omit<Mp4Facts, "faststart">, moovEnd: number): Promise<void> {
  const track = facts.tracks.find((t) => t.kind === "video" && !t.stillPicture) ?? facts.tracks.find((t) => t.kind === "audio");
  // With mehd the duration is declared, but a video track's frame rate still lives in the first moof (a trex means mvex).
  const fpsOnly = !facts.fragmentsUndeclared;
  if (fpsOnly && !(track?.kind === "video" && !track.fps && track.defaultSampleDuration !== undefined)) return;
  if (!track?.trackId || !track.timescale) return;
  const timing = await readFragmentTiming(source, moovEnd, track.trackId, track.timescale, track.defaultSampleDuration ?? 0, fpsOnly).catch(() => undefined);
  if (timing?.fps && track.kind === "video" && !track.fps) track.fps = Math.round(timing.fps * 1000) / 1000;
  if (timing?.durationSeconds && !fpsOnly) {
    facts.durationSeconds = timing.durationSeconds;
    facts.durationFrom = timing.durationFrom;
  }
}

function parseTrak(b: Uint8Array, trak: Box, movieTimescale: number): Mp4Track {
  const hdlr = mp4Path(b, trak, ["mdia", "hdlr"]);
  const handler = hdlr ? ascii(b, hdlr.start + 8, 4) : "";
  const kind = handler === "vide" ? "video" : handler === "soun" ? "audio" : "other";
  const track: Mp4Track = { kind };
  const mdhd = mp4Path(b, trak, ["mdia", "mdhd"]);
  const seconds = mdhd ? timing(b, mdhd) : undefined;
  const tkhdBox = mp4Child(b, trak, "tkhd");
  if (tkhdBox) track.trackId = u32be(b, tkhdBox.start + (b[tkhdBox.start] === 1 ? 20 : 12));
  if (mdhd) track.timescale = mdhdTimescale(b, mdhd);
  if (seconds) track.durationSeconds = seconds;
  const elst = mp4Path(b, trak, ["edts", "elst"]);
  const span = elst ? editSpan(readEditList(b, elst.start, elst.end), movieTimescale) : undefined;
  if (span?.presentedSeconds) track.durationSeconds = span.presentedSeconds;
  if (span?.startSeconds) track.startSeconds = span.startSeconds;
  const stbl = mp4Path(b, trak, ["mdia", "minf", "stbl"]);
  const stsd = stbl && mp4Child(b, stbl, "stsd");
  const entry = stsd && firstMp4Box(b, stsd, { from: stsd.start + 8 });
  if (entry) {
    // A protected entry (encv, enca) names its codec in sinf/frma; its own fields are the original's.
    const code = originalFormat(b, entry, handler) ?? entry.type;
    track.codec = codecNames[code] ?? code.trim().toLowerCase();
    if (kind === "video") readVisualEntry(b, entry, track);
    if (kind === "audio") readAudioEntry(b, entry, track);
  }
  const stts = stbl && mp4Child(b, stbl, "stts");
  if (kind === "video" && stts && mdhd) {
    const rate = sttsRate(b, stts, mdhdTimescale(b, mdhd), seconds);
    if (rate.samples === 1 && isPictureCodec(track.codec)) track.stillPicture = true;
    else if (rate.fps) track.fps = Math.round(rate.fps * 1000) / 1000;
  }
  const tkhd = mp4Child(b, trak, "tkhd");
  if (kind === "video" && tkhd) readTrackHeader(b, tkhd, track);
  return track;
}

function mdhdTimescale(b: Uint8Array, mdhd: Box): number {
  return u32be(b, mdhd.start + (b[mdhd.start] === 1 ? 20 : 12)) ?? 0;
}

/**
 * The declared frame rate from the time-to-sample table: the timescale over the delta most samples use, as
 * ffprobe's r_frame_rate. The track's duration (mdhd) is no measure: an edit list or a first sample's composition
 * offset stretches it (8.571 fps from a 30 fps file). A table without a majority delta (variable rate) gives the
 * average. Linear in the table's entries, which the moov's size cap bounds.
 */
export function sttsRate(b: Uint8Array, stts: Mp4Parent, timescale: number, seconds: number | undefined): { samples: number; fps?: number } {
  const count = Math.min(u32be(b, stts.start + 4) ?? 0, Math.floor((stts.end - stts.start - 8) / 8));
  const perDelta = new Map<number, number>();
  let samples = 0;
  let ticks = 0;
  for (let i = 0; i < count; i++) {
    const n = u32be(b, stts.start + 8 + i * 8) ?? 0;
    const delta = u32be(b, stts.start + 12 + i * 8) ?? 0;
    samples += n;
    ticks += n * delta;
    if (delta > 0) perDelta.set(delta, (perDelta.get(delta) ?? 0) + n);
  }
  let mode = 0;
  let modeSamples = 0;
  for (const [delta, n] of perDelta) if (n > modeSamples) { mode = delta; modeSamples = n; }
  if (samples < 2) return { samples };
  if (timescale > 0 && mode > 0 && modeSamples * 2 > samples) return { samples, fps: timescale / mode };
  const total = timescale > 0 && ticks > 0 ? ticks / timescale : seconds;
  return total ? { samples, fps: samples / total } : { samples };
}

/** tkhd: the display matrix (a b u / c d v / x y w, 16.16) and the presentation size (16.16). */
function readTrackHeader(b: Uint8Array, tkhd: Box, track: Mp4Track): void {
  const matrix = tkhd.start + (b[tkhd.start] === 1 ? 44 : 32) + 8;
  const a = s32(b, matrix) / 65536;
  const bb = s32(b, matrix + 4) / 65536;
  const degrees = Math.round((Math.atan2(bb, a) * 180) / Math.PI);
  const rotation = ((Math.round(degrees / 90) * 90) % 360 + 360) % 360 as 0 | 90 | 180 | 270;
  const width = Math.round((u32be(b, matrix + 36) ?? 0) / 65536);
  const height = Math.round((u32be(b, matrix + 40) ?? 0) / 65536);
  if (width > 0 && height > 0) {
    const quarter = rotation === 90 || rotation === 270;
    track.width = quarter ? height : width;
    track.height = quarter ? width : height;
  } else if (track.width && track.height && (rotation === 90 || rotation === 270)) {
    [track.width, track.height] = [track.height, track.width];
  }
  track.rotation = rotation;
}
