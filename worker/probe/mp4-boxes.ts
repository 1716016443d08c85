import { mpeg4VisualConfig } from "./mpeg4-visual.ts";
import { esdsAudioTypes, isPictureCodec } from "./mp4-object-types.ts";
import { ascii, u16be, u32be } from "../bytes/read-bytes.ts";
import { boxes, child, path, type Box } from "./mp4-box-walk.ts";
import { concatBytes } from "../../shared/bytes/concat-bytes.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";
import { reduced } from "./ratio.ts";
import { readFragmentTiming } from "./mp4-fragments.ts";
import { aacConfig, av1Config, avcConfig, hevcConfig, vpcConfig } from "../../shared/media/codec-config.ts";
import type { CodecConfig, ColourDescription } from "../../shared/media/codec-string.ts";
import type { TrackFacts } from "../../shared/shapes/tracks.ts";
import { originalFormat, quickTimeChapters, readMp4TrackFacts } from "./mp4-tracks.ts";
import { editSpan, readEditList, tracksSpanSeconds } from "./mp4-edit-list.ts";

/** One track of an MP4/MOV `moov`, as its boxes declare it (ISO/IEC 14496-12). */
export interface Mp4Track {
  kind: "video" | "audio" | "other";
  codec?: string;
  profile?: string;
  pixelFormat?: string;
  /** Displayed size: the track header's size with the display matrix's quarter turns applied. */
  width?: number;
  height?: number;
  rotation?: 0 | 90 | 180 | 270;
  /** The sample entry's (coded) size, before the pixel aspect ratio and the matrix. */
  codedWidth?: number;
  codedHeight?: number;
  /** The `pasp` box's pixel aspect ratio when it is not square. */
  sampleAspectRatio?: { num: number; den: number };
  /** What the track presents: its edit list's span when it has one (mp4-edit-list.ts), else its media's (mdhd). */
  durationSeconds?: number;
  /** When the track starts presenting: its edit list's leading empty edits. */
  startSeconds?: number;
  /** The declared rate: timescale over the commonest sample delta (ffprobe's r_frame_rate). */
  fps?: number;
  sampleRate?: number;
  channels?: number;
  /** The audio entry's sample size (meaningful for lossless and PCM codecs). */
  bitDepth?: number;
  hdr?: "sdr" | "pq" | "hlg";
  /** The sample entry's decoder configuration (avcC, hvcC, vpcC, av1C, esds, or the entry code itself). */
  codecConfig?: CodecConfig;
  /** An attached cover (QuickTime/3GP `covr` is metadata, not a track; a one-sample JPEG track is one). */
  stillPicture?: boolean;
  /** tkhd's track_ID and mdhd's timescale: what a fragmented file's moofs and index refer to. */
  trackId?: number;
  timescale?: number;
  /** trex's default sample duration (fragmented files), in the track's timescale. */
  defaultSampleDuration?: number;
}

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
/**
 * Bytes fetched at a box header not held yet while walking a moov: one request then holds the header boxes that
 * follow it (a trak's tkhd, mdhd, hdlr, stsd and stts take 500-900 bytes in ffmpeg's and cameras' files).
 */
const moovWindowBytes = 2 * 1024;
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
/** Nesting walked below moov (trak > mdia > minf > stbl); boxes and requests one walk may take. */
const maxSparseDepth = 4;
const maxSparseBoxes = 1024;
const maxSparseRequests = 24;

interface SparseWalk { boxes: number; requestsBefore: number; traks: number; maxTraks: number }

/** The moov's body through a sparse walk; a moov whose walk would take too many boxes or requests is read whole. */
async function sparseMoov(source: RangeByteSource, offset: number, headerSize: number, end: number): Promise<Uint8Array> {
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
    let boxSize = u32be(h, 0) ?? 0;
    const type = ascii(h, 4, 4);
    let headerSize = 8;
    if (boxSize === 1) {
      boxSize = (u32be(h, 8) ?? 0) * 2 ** 32 + (u32be(h, 12) ?? 0);
      headerSize = 16;
    } else if (boxSize === 0) boxSize = end - o;
    if (boxSize < headerSize) break;
    const boxEnd = Math.min(o + boxSize, end);
    let body: Uint8Array | undefined;
    if (wanted.has(type)) {
      found.add(type);
      if (containerBoxes.has(type) && depth < maxSparseDepth) body = await sparseBoxes(source, type, o + headerSize, boxEnd, depth + 1, walk);
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
/** Top-level boxes walked before giving up (ftyp, free, mdat, moov, ... : real files have a handful). */
const maxTopLevelBoxes = 64;

/** ffprobe's names for the sample-entry codes. */
const codecNames: Readonly<Record<string, string>> = {
  avc1: "h264", avc3: "h264", hvc1: "hevc", hev1: "hevc", av01: "av1", vp09: "vp9", vp08: "vp8", mp4v: "mpeg4",
  "mp4a": "aac", Opus: "opus", fLaC: "flac", alac: "alac", "ac-3": "ac3", "ec-3": "eac3", ".mp3": "mp3",
  jpeg: "mjpeg", mjpa: "mjpeg", apcn: "prores", apch: "prores", apcs: "prores", apco: "prores", ap4h: "prores",
};

/** H.264 profile_idc to ffprobe's profile names. */
const avcProfiles: Readonly<Record<number, string>> = {
  66: "Baseline", 77: "Main", 88: "Extended", 100: "High", 110: "High 10", 122: "High 4:2:2", 244: "High 4:4:4 Predictive",
};
const hevcProfiles: Readonly<Record<number, string>> = { 1: "Main", 2: "Main 10", 3: "Main Still Picture", 4: "Rext" };

/** Walks the top-level boxes through the byte source and parses `moov`. Undefined if there is none to read. */
export async function readMp4(source: RangeByteSource): Promise<Mp4Facts | undefined> {
  const size = source.size;
  if (size === undefined) return undefined;
  let offset = 0;
  let mdatAt: number | undefined;
  for (let i = 0; i < maxTopLevelBoxes && offset + 8 <= size; i++) {
    // The last boxes of a file, when their header is not held yet and they are small: read all that is left in
    // one request. Otherwise a window at the header (a moov's mvhd and first trak's headers land in it).
    // Past an mdat, the suffix sent with the head may hold part of what is left: wait for it before planning.
    if (mdatAt !== undefined && !source.holds(offset, 16)) await source.settled();
    const wholeTail = !source.holds(offset, 16) &&
      (size - offset <= wholeReadBytes || (mdatAt !== undefined && source.missingBytes(offset, size - offset) <= wholeTailAfterMdatBytes));
    const header = wholeTail ? (await source.read(offset, size - offset)).subarray(0, 16) : await source.read(offset, 16, moovWindowBytes);
    let boxSize = u32be(header, 0) ?? 0;
    const type = ascii(header, 4, 4);
    let headerSize = 8;
    if (boxSize === 1) {
      const high = u32be(header, 8) ?? 0;
      boxSize = high * 2 ** 32 + (u32be(header, 12) ?? 0);
      headerSize = 16;
    } else if (boxSize === 0) boxSize = size - offset; // to the end of the file
    if (boxSize < headerSize) return undefined;
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
      const fragmented = child(body, { type: "moov", start: 0, end: body.length }, "mvex") !== undefined;
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
  const moov: Box = { type: "moov", start: 0, end: b.length };
  const mvhd = child(b, moov, "mvhd");
  const tracks: Mp4Track[] = [];
  for (const trak of boxes(b, 0, b.length)) {
    if (trak.type !== "trak") continue;
    tracks.push(parseTrak(b, trak, mvhd ? u32be(b, mvhd.start + (b[mvhd.start] === 1 ? 20 : 12)) ?? 0 : 0));
  }
  let durationSeconds = mvhd ? timing(b, mvhd) : undefined;
  // No movie duration (zero or absent) in an unfragmented file: the span of its tracks, edits applied.
  if (!durationSeconds && !child(b, moov, "mvex")) durationSeconds = tracksSpanSeconds(tracks);
  let fragmentsUndeclared = false;
  // mvex: a fragmented file. mehd declares its whole duration (in the movie timescale); trex the samples' default.
  const mvex = child(b, moov, "mvex");
  if (mvex) {
    const mehd = child(b, mvex, "mehd");
    const scale = mvhd ? u32be(b, mvhd.start + (b[mvhd.start] === 1 ? 20 : 12)) ?? 0 : 0;
    const ticks = mehd ? (b[mehd.start] === 1 ? (u32be(b, mehd.start + 4) ?? 0) * 2 ** 32 + (u32be(b, mehd.start + 8) ?? 0) : u32be(b, mehd.start + 4) ?? 0) : 0;
    if (scale > 0 && ticks > 0) durationSeconds = ticks / scale;
    else fragmentsUndeclared = true;
    for (const trex of boxes(b, mvex.start, mvex.end)) {
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
  const hdlr = path(b, trak, "mdia", "hdlr");
  const handler = hdlr ? ascii(b, hdlr.start + 8, 4) : "";
  const kind = handler === "vide" ? "video" : handler === "soun" ? "audio" : "other";
  const track: Mp4Track = { kind };
  const mdhd = path(b, trak, "mdia", "mdhd");
  const seconds = mdhd ? timing(b, mdhd) : undefined;
  const tkhdBox = child(b, trak, "tkhd");
  if (tkhdBox) track.trackId = u32be(b, tkhdBox.start + (b[tkhdBox.start] === 1 ? 20 : 12));
  if (mdhd) track.timescale = mdhdTimescale(b, mdhd);
  if (seconds) track.durationSeconds = seconds;
  const elst = path(b, trak, "edts", "elst");
  const span = elst ? editSpan(readEditList(b, elst.start, elst.end), movieTimescale) : undefined;
  if (span?.presentedSeconds) track.durationSeconds = span.presentedSeconds;
  if (span?.startSeconds) track.startSeconds = span.startSeconds;
  const stbl = path(b, trak, "mdia", "minf", "stbl");
  const stsd = stbl && child(b, stbl, "stsd");
  const entry = stsd ? boxes(b, stsd.start + 8, stsd.end).next().value : undefined;
  if (entry) {
    // A protected entry (encv, enca) names its codec in sinf/frma; its own fields are the original's.
    const code = originalFormat(b, entry, handler) ?? entry.type;
    track.codec = codecNames[code] ?? code.trim().toLowerCase();
    if (kind === "video") readVisualEntry(b, entry, track);
    if (kind === "audio") readAudioEntry(b, entry, track);
  }
  const stts = stbl && child(b, stbl, "stts");
  if (kind === "video" && stts && mdhd) {
    const rate = sttsRate(b, stts, mdhdTimescale(b, mdhd), seconds);
    if (rate.samples === 1 && isPictureCodec(track.codec)) track.stillPicture = true;
    else if (rate.fps) track.fps = Math.round(rate.fps * 1000) / 1000;
  }
  const tkhd = child(b, trak, "tkhd");
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
export function sttsRate(b: Uint8Array, stts: Box, timescale: number, seconds: number | undefined): { samples: number; fps?: number } {
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

/** VisualSampleEntry: 8 bytes of SampleEntry, 70 of visual fields (width, height at 24/26), then boxes. */
function readVisualEntry(b: Uint8Array, entry: Box, track: Mp4Track): void {
  const width = u16be(b, entry.start + 24);
  const height = u16be(b, entry.start + 26);
  if (width && height) { track.width = width; track.height = height; track.codedWidth = width; track.codedHeight = height; }
  let colour: ColourDescription | undefined;
  let av1: Uint8Array | undefined;
  for (const box of boxes(b, entry.start + 78, entry.end)) {
    const body = b.subarray(box.start, box.end);
    if (box.type === "avcC") {
      const idc = b[box.start + 1] ?? 0;
      const constrained = idc === 66 && ((b[box.start + 2] ?? 0) & 0x40) !== 0;
      const name = constrained ? "Constrained Baseline" : avcProfiles[idc];
      if (name) track.profile = name;
      // These profiles are 8-bit 4:2:0 by definition; higher ones declare chroma and depth elsewhere.
      if (idc === 66 || idc === 77 || idc === 88 || idc === 100) track.pixelFormat = "yuv420p";
      track.codecConfig = avcConfig(body, entry.type === "avc3" ? "avc3" : "avc1");
    }
    if (box.type === "hvcC") {
      const idc = (b[box.start + 1] ?? 0) & 0x1f;
      if (hevcProfiles[idc]) track.profile = hevcProfiles[idc];
      if (idc === 1) track.pixelFormat = "yuv420p";
      if (idc === 2) track.pixelFormat = "yuv420p10le";
      track.codecConfig = hevcConfig(body, entry.type === "hev1" ? "hev1" : "hvc1");
    }
    // vpcC is a full box: version and flags come first.
    if (box.type === "vpcC") track.codecConfig = vpcConfig(body.subarray(4));
    if (box.type === "av1C") av1 = body;
    if (box.type === "esds" && entry.type === "mp4v") track.codecConfig = mpeg4VisualConfig(body);
    if (box.type === "pasp") {
      const num = u32be(b, box.start) ?? 0;
      const den = u32be(b, box.start + 4) ?? 0;
      if (num > 0 && den > 0 && num !== den) track.sampleAspectRatio = reduced(num, den);
    }
    if (box.type === "colr" && ascii(b, box.start, 4) === "nclx") {
      const transfer = u16be(b, box.start + 6) ?? 2;
      track.hdr = transfer === 16 ? "pq" : transfer === 18 ? "hlg" : "sdr";
      colour = {
        primaries: u16be(b, box.start + 4) ?? 2, transfer, matrix: u16be(b, box.start + 8) ?? 2,
        fullRange: ((b[box.start + 10] ?? 0) & 0x80) !== 0,
      };
    }
  }
  // av1C has no colour of its own: the codecs string takes it from colr, which may come after it.
  if (av1) track.codecConfig = av1Config(av1, colour);
  if (!track.codecConfig && entry.type === "vp08") track.codecConfig = { codec: "vp8" };
}

/** AudioSampleEntry (version 0): channel count at 16, sample rate (16.16) at 24. */
function readAudioEntry(b: Uint8Array, entry: Box, track: Mp4Track): void {
  const channels = u16be(b, entry.start + 16);
  const sampleSize = u16be(b, entry.start + 18);
  const rate = u16be(b, entry.start + 24);
  if (channels) track.channels = channels;
  if (sampleSize) track.bitDepth = sampleSize;
  // Opus in MP4 always decodes at 48 kHz whatever the entry says.
  if (track.codec === "opus") track.sampleRate = 48000;
  else if (rate) track.sampleRate = rate;
  // QuickTime sound entries v1/v2 have 16/36 more bytes before their boxes.
  const version = u16be(b, entry.start + 8) ?? 0;
  if (version === 2) readSoundDescriptionV2(b, entry, track);
  const childrenAt = entry.start + 28 + (version === 1 ? 16 : version === 2 ? 36 : 0);
  for (const box of boxes(b, childrenAt, entry.end)) {
    // QuickTime keeps the esds inside a `wave` box (after frma and a copy of the entry's code).
    const esdsBox = box.type === "wave" ? child(b, box, "esds") : box.type === "esds" ? box : undefined;
    // muxers write 2 in the entry's channel count whatever the stream; AAC's own config has the real number.
    if (esdsBox) {
      const esds = readEsds(b, esdsBox.start + 4, esdsBox.end);
      if (esds?.channels) track.channels = esds.channels;
      // USAC (xHE-AAC) states its output rate in its own config; the entry's field is often 0 or a placeholder.
      if (esds?.usacSampleRate) track.sampleRate = esds.usacSampleRate;
      track.codecConfig = esds?.config;
      if (esds?.codecName) track.codec = esds.codecName;
    }
  }
  track.codecConfig ??= audioEntryConfigs[originalFormat(b, entry, "soun") ?? entry.type];
}

/**
 * QuickTime SoundDescriptionV2 (rates above 65535 Hz, and what Apple's encoders write for xHE-AAC): the common
 * fields hold placeholders (3 channels, 1 Hz); the rate is a float64 and the channel count a u32 after them.
 */
function readSoundDescriptionV2(b: Uint8Array, entry: Box, track: Mp4Track): void {
  if (entry.start + 44 > entry.end) return;
  const rate = new DataView(b.buffer, b.byteOffset + entry.start + 32, 8).getFloat64(0);
  const channels = u32be(b, entry.start + 40);
  if (Number.isFinite(rate) && rate >= 1000 && rate <= 768000) track.sampleRate = Math.round(rate);
  if (channels && channels <= 64) track.channels = channels;
}

/** Sample entries whose code alone is the codecs entry. */
const audioEntryConfigs: Readonly<Record<string, CodecConfig>> = {
  Opus: { codec: "opus" }, fLaC: { codec: "flac" }, "ac-3": { codec: "ac3" }, "ec-3": { codec: "eac3" }, ".mp3": { codec: "mp3-in-mp4" },
  alac: { codec: "alac" }, spex: { codec: "speex" },
};
/** MPEG-4 objectTypeIndication of MPEG-4 Audio (AAC); the other audio values are in mp4-object-types.ts. */
const mpeg4Audio = 0x40;

/**
 * Descriptor (tag, size in up to 4 bytes of 7 bits) walk of an esds box: the object type, and from
 * AudioSpecificConfig the AAC object type and channels.
 */
function readEsds(b: Uint8Array, start: number, end: number): { channels?: number; config?: CodecConfig; usacSampleRate?: number; codecName?: string } | undefined {
  let o = start;
  const descriptor = (): { tag: number; data: number } | undefined => {
    const tag = b[o];
    let length = 0;
    let i = 1;
    for (; i <= 4; i++) {
      const c = b[o + i];
      if (c === undefined) return undefined;
      length = (length << 7) | (c & 0x7f);
      if (!(c & 0x80)) break;
    }
    return tag === undefined ? undefined : { tag, data: o + i + 1 };
  };
  const es = descriptor();
  if (es?.tag !== 0x03) return undefined;
  const flags = b[es.data + 2] ?? 0;
  o = es.data + 3 + (flags & 0x80 ? 2 : 0) + (flags & 0x40 ? 1 + (b[es.data + 3] ?? 0) : 0) + (flags & 0x20 ? 2 : 0);
  const config = descriptor();
  if (config?.tag !== 0x04) return undefined;
  const objectType = b[config.data];
  const other = objectType === undefined ? undefined : esdsAudioTypes[objectType];
  if (other) return { config: other.config, codecName: other.name };
  // Another codec (MPEG-2 AAC, DTS, ...): its DecoderSpecificInfo is no AudioSpecificConfig.
  if (objectType !== mpeg4Audio) return {};
  o = config.data + 13;
  const specific = descriptor();
  if (specific?.tag !== 0x05 || specific.data + 2 > end) return undefined;
  const aac = objectType === mpeg4Audio ? aacConfig(b.subarray(specific.data, Math.min(end, specific.data + 2))) : undefined;
  // AudioSpecificConfig: object type (5 bits), frequency index (4; 15 = 24 explicit bits), channel config (4).
  const read = (from: number, count: number) => {
    let v = 0;
    for (let n = from; n < from + count; n++) v = (v << 1) | (((b[specific.data + (n >> 3)] ?? 0) >> (7 - (n & 7))) & 1);
    return v;
  };
  // An object type of 31 escapes to 32 + the next 6 bits (USAC, xHE-AAC, is 42).
  const escaped = read(0, 5) === 31;
  const objectTypeBits = escaped ? 11 : 5;
  const frequencyIndex = read(objectTypeBits, 4);
  const explicit = frequencyIndex === 15;
  const count = read(objectTypeBits + 4 + (explicit ? 24 : 0), 4);
  // Configurations 1-6 are that many channels, 7 is 7.1 (8 channels); 0 means "in the stream".
  const channels = count >= 1 && count <= 6 ? count : count === 7 ? 8 : undefined;
  const usac = escaped && 32 + read(5, 6) === 42;
  const frequency = explicit ? read(objectTypeBits + 4, 24) : ascSampleRates[frequencyIndex];
  return { ...(channels ? { channels } : {}), ...(aac ? { config: aac } : {}), ...(usac && frequency ? { usacSampleRate: frequency } : {}) };
}

/** AudioSpecificConfig sampling frequency indexes (ISO 14496-3 1.6.3.3); 15 is an explicit 24-bit rate. */
const ascSampleRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350] as const;
