import { mpeg4VisualConfig } from "./mpeg4-visual.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";
import { children, type Element } from "./matroska-elements.ts";
import { reduced } from "./ratio.ts";
import { uint, vint } from "./tail-duration.ts";
import { aacConfig, av1Config, avcConfig, hevcConfig, matroskaVp9Features, vp9LevelForSize } from "../../shared/media/codec-config.ts";
import type { CodecConfig, ColourDescription } from "../../shared/media/codec-string.ts";
import type { TrackFacts } from "../../shared/shapes/tracks.ts";
import { matroskaChapters, matroskaTrackFacts } from "./matroska-extras.ts";

/** One TrackEntry of a Matroska/WebM file, as its Tracks element declares it. */
export interface MatroskaTrack {
  kind: "video" | "audio" | "other";
  /** ffprobe's codec name. */
  codec?: string;
  /** Displayed size: DisplayWidth/Height when in pixels, else the coded size. */
  width?: number;
  height?: number;
  /** PixelWidth/Height: the coded size. */
  codedWidth?: number;
  codedHeight?: number;
  /** The pixel aspect ratio the display size implies, when it is not square. */
  sampleAspectRatio?: { num: number; den: number };
  /** 1e9 / DefaultDuration: the declared rate (ffprobe's r_frame_rate), even with a 1 ms cluster timebase. */
  fps?: number;
  sampleRate?: number;
  channels?: number;
  bitDepth?: number;
  /** Decoder configuration from CodecPrivate and the Colour element, for the codecs string. */
  codecConfig?: CodecConfig;
}

export interface MatroskaFacts {
  /** Info/Duration in seconds, when the muxer wrote it (MediaRecorder does not). */
  durationSeconds?: number;
  timecodeScale: number;
  tracks: MatroskaTrack[];
  /** Languages, dispositions, encryption (matroska-extras.ts), and Chapters when they precede the first Cluster in held bytes. */
  trackFacts?: TrackFacts;
}

/** Matroska CodecID to ffprobe's names. */
const codecs: Readonly<Record<string, string>> = {
  V_VP8: "vp8", V_VP9: "vp9", V_AV1: "av1", "V_MPEG4/ISO/AVC": "h264", "V_MPEGH/ISO/HEVC": "hevc", V_THEORA: "theora",
  "V_MPEG4/ISO/ASP": "mpeg4", V_PRORES: "prores", A_OPUS: "opus", A_VORBIS: "vorbis", A_FLAC: "flac", "A_MPEG/L3": "mp3",
  "A_MPEG/L2": "mp2", A_AC3: "ac3", A_EAC3: "eac3", A_ALAC: "alac", A_DTS: "dts", A_TRUEHD: "truehd",
};

const ids = {
  ebml: 0x1a45dfa3, segmentId: 0x18538067, info: 0x1549a966, tracks: 0x1654ae6b, timecodeScale: 0x2ad7b1, duration: 0x4489,
  trackEntry: 0xae, trackType: 0x83, codecId: 0x86, defaultDuration: 0x23e383, video: 0xe0, audio: 0xe1,
  pixelWidth: 0xb0, pixelHeight: 0xba, displayWidth: 0x54b0, displayHeight: 0x54ba, displayUnit: 0x54b2,
  samplingFrequency: 0xb5, outputSamplingFrequency: 0x78b5, channels: 0x9f, bitDepth: 0x6264, cluster: 0x1f43b675,
  codecPrivate: 0x63a2, colour: 0x55b0, matrixCoefficients: 0x55b1, bitsPerChannel: 0x55b2, range: 0x55b9,
  transferCharacteristics: 0x55ba, primaries: 0x55bb, chapters: 0x1043a770,
} as const;

/** Element header bytes read at once: an ID (at most 4 bytes) and a size (at most 8). */
const elementHeaderBytes = 12;
/** Info or Tracks larger than this are not read at the edge (real ones are a few hundred bytes to a few KiB). */
const maxHeaderElementBytes = 1024 * 1024;
/** Top-level Segment children walked before giving up (SeekHead, Void, Info, Tags, Attachments, Tracks...). */
const maxSegmentChildren = 256;

/**
 * Reads the Segment's Info and Tracks by walking the EBML elements through the byte source: each top-level
 * element's header is read, Info and Tracks are read whole, anything else (attachments, tags, chapters) is
 * skipped by its size without being fetched. Undefined when no Tracks precede the first Cluster.
 */
export async function readMatroska(source: RangeByteSource): Promise<MatroskaFacts | undefined> {
  const header = await elementAt(source, 0);
  if (header?.id !== ids.ebml || header.unknown) return undefined;
  const segment = await elementAt(source, header.end);
  if (segment?.id !== ids.segmentId) return undefined;
  const segmentEnd = segment.unknown || source.size === undefined ? source.size ?? Infinity : Math.min(segment.end, source.size);
  const facts: MatroskaFacts = { timecodeScale: 1_000_000, tracks: [] };
  let rawDuration: number | undefined;
  let sawTracks = false;
  let sawInfo = false;
  let sawChapters = false;
  let o = segment.start;
  // Past Info and Tracks the walk goes on only through bytes already held (Chapters usually follow Tracks): no
  // request is spent on it.
  for (let i = 0; i < maxSegmentChildren && o < segmentEnd && !(sawTracks && sawInfo && (sawChapters || !source.holds(o, elementHeaderBytes))); i++) {
    const el = await elementAt(source, o);
    if (!el || el.id === ids.cluster) break;
    if (el.id === ids.chapters && !sawChapters) {
      sawChapters = true;
      if (!el.unknown && el.end - el.start <= maxHeaderElementBytes && source.holds(el.start, el.end - el.start)) {
        const chapters = matroskaChapters(await source.read(el.start, el.end - el.start));
        if (chapters.length > 0) facts.trackFacts = { ...facts.trackFacts, chapters };
      }
    }
    if (el.id === ids.info || el.id === ids.tracks) {
      if (el.unknown || el.end - el.start > maxHeaderElementBytes) break;
      const body = await source.read(el.start, el.end - el.start);
      if (el.id === ids.info) {
        sawInfo = true;
        for (const f of children(body, 0, body.length)) {
          if (f.id === ids.timecodeScale) facts.timecodeScale = uint(body, f.start, f.end - f.start) || 1_000_000;
          if (f.id === ids.duration) rawDuration = float(body, f.start, f.end - f.start);
        }
      } else {
        sawTracks = true;
        for (const entry of children(body, 0, body.length)) if (entry.id === ids.trackEntry) facts.tracks.push(trackOf(body, entry));
        facts.trackFacts = { ...matroskaTrackFacts(body, facts.tracks), ...facts.trackFacts };
      }
    }
    if (el.unknown) break; // an unknown-size element other than a Cluster: nothing after it can be located
    o = el.end;
  }
  if (rawDuration && rawDuration > 0) facts.durationSeconds = (rawDuration * facts.timecodeScale) / 1e9;
  return sawTracks ? facts : undefined;
}

/** The element whose header is at `offset`: ID, data start and end (absolute), or undefined past the end. */
async function elementAt(source: RangeByteSource, offset: number): Promise<(Element & { unknown: boolean }) | undefined> {
  const b = await source.read(offset, elementHeaderBytes);
  const id = vint(b, 0, true);
  const size = id && vint(b, id.length);
  if (!id || !size) return undefined;
  const start = offset + id.length + size.length;
  return { id: id.value, start, end: size.unknown ? Infinity : start + size.value, unknown: size.unknown };
}

function trackOf(b: Uint8Array, entry: Element): MatroskaTrack {
  let type = 0;
  let codecId = "";
  let frameNs: number | undefined;
  const track: MatroskaTrack = { kind: "other" };
  let display: { w?: number; h?: number; unit: number } = { unit: 0 };
  let codecPrivate: Uint8Array | undefined;
  let colour: { primaries?: number; transfer?: number; matrix?: number; range?: number; bits?: number } | undefined;
  for (const f of children(b, entry.start, entry.end)) {
    if (f.id === ids.trackType) type = uint(b, f.start, f.end - f.start);
    if (f.id === ids.codecId) codecId = text(b, f.start, f.end);
    if (f.id === ids.defaultDuration) frameNs = uint(b, f.start, f.end - f.start);
    if (f.id === ids.codecPrivate) codecPrivate = b.subarray(f.start, f.end);
    if (f.id === ids.video) {
      for (const v of children(b, f.start, f.end)) {
        const value = uint(b, v.start, v.end - v.start);
        if (v.id === ids.pixelWidth) track.width = value;
        if (v.id === ids.pixelHeight) track.height = value;
        if (v.id === ids.displayWidth) display.w = value;
        if (v.id === ids.displayHeight) display.h = value;
        if (v.id === ids.displayUnit) display.unit = value;
        if (v.id === ids.colour) colour = colourOf(b, v);
      }
    }
    if (f.id === ids.audio) {
      let output: number | undefined;
      for (const a of children(b, f.start, f.end)) {
        if (a.id === ids.samplingFrequency) track.sampleRate = float(b, a.start, a.end - a.start);
        if (a.id === ids.outputSamplingFrequency) output = float(b, a.start, a.end - a.start);
        if (a.id === ids.channels) track.channels = uint(b, a.start, a.end - a.start);
        if (a.id === ids.bitDepth) track.bitDepth = uint(b, a.start, a.end - a.start);
      }
      if (output) track.sampleRate = output; // SBR: the decoder outputs twice the core rate
    }
  }
  track.kind = type === 1 ? "video" : type === 2 ? "audio" : "other";
  const codec = codecs[codecId] ?? (codecId.startsWith("A_AAC") ? "aac" : codecId.startsWith("A_PCM/INT/LIT") ? `pcm_s${track.bitDepth ?? 16}le` : undefined);
  if (codec) track.codec = codec;
  else if (codecId) track.codec = codecId.replace(/^[VAS]_/, "").toLowerCase();
  // Opus always decodes at 48 kHz; Matroska's SamplingFrequency copies the encoder's input rate.
  if (codec === "opus") track.sampleRate = 48000;
  track.codedWidth = track.width;
  track.codedHeight = track.height;
  // DisplayWidth/Height in pixels (unit 0) or as an aspect ratio (unit 3, what ffmpeg writes for a SAR): ffprobe's
  // SAR is (DisplayWidth x PixelHeight) : (DisplayHeight x PixelWidth), reduced; the shown width is the coded one
  // stretched by it.
  if ((display.unit === 0 || display.unit === 3) && display.w && display.h && track.width && track.height) {
    if (display.w * track.height !== display.h * track.width) {
      track.sampleAspectRatio = reduced(display.w * track.height, display.h * track.width);
      track.width = Math.round((track.height * display.w) / display.h);
    }
  }
  if (track.kind === "video" && frameNs) track.fps = Math.round((1e9 / frameNs) * 1000) / 1000;
  const config = codecConfigOf(codecId, codecPrivate, colour, track);
  if (config) track.codecConfig = config;
  return track;
}

type MatroskaColour = { primaries?: number; transfer?: number; matrix?: number; range?: number; bits?: number };

/** Video/Colour: the H.273 code points (Range 2 is full range). */
function colourOf(b: Uint8Array, el: Element): MatroskaColour {
  const c: MatroskaColour = {};
  for (const f of children(b, el.start, el.end)) {
    const value = uint(b, f.start, f.end - f.start);
    if (f.id === ids.primaries) c.primaries = value;
    if (f.id === ids.transferCharacteristics) c.transfer = value;
    if (f.id === ids.matrixCoefficients) c.matrix = value;
    if (f.id === ids.range) c.range = value;
    if (f.id === ids.bitsPerChannel) c.bits = value;
  }
  return c;
}

/** The codecs-string configuration: CodecPrivate is the ISOBMFF record for AVC, HEVC and AV1, the AudioSpecificConfig for AAC. */
function codecConfigOf(codecId: string, priv: Uint8Array | undefined, colour: MatroskaColour | undefined, track: MatroskaTrack): CodecConfig | undefined {
  // Unspecified (2) code points mean the defaults: BT.709.
  const described: ColourDescription | undefined = colour && (colour.primaries ?? colour.transfer ?? colour.matrix) !== undefined
    ? { primaries: pick(colour.primaries), transfer: pick(colour.transfer), matrix: pick(colour.matrix), fullRange: colour.range === 2 }
    : undefined;
  switch (codecId) {
    case "V_MPEG4/ISO/AVC": return priv ? avcConfig(priv) : undefined;
    case "V_MPEGH/ISO/HEVC": return priv ? hevcConfig(priv, "hev1") : undefined;
    case "V_AV1": return priv ? av1Config(priv, described) : undefined;
    case "V_VP9": {
      const features = priv ? matroskaVp9Features(priv) : {};
      // ffmpeg's WebM writes neither CodecPrivate nor BitsPerChannel for VP9: a PQ or HLG transfer then means the
      // 10-bit profile 2 (HDR10 and HLG are 10-bit; an 8-bit HDR VP9 stream is not something encoders produce).
      const hdr = colour?.transfer === 16 || colour?.transfer === 18;
      const bitDepth = features.bitDepth ?? colour?.bits ?? (hdr ? 10 : 8);
      return {
        codec: "vp9", profile: features.profile ?? (bitDepth > 8 ? 2 : 0), level: features.level ?? vp9LevelForSize(track.width, track.height),
        bitDepth, ...(described ? { colour: described } : {}),
      };
    }
    case "V_VP8": return { codec: "vp8" };
    case "V_THEORA": return { codec: "theora" };
    case "A_OPUS": return { codec: "opus" };
    case "A_VORBIS": return { codec: "vorbis" };
    case "A_FLAC": return { codec: "flac" };
    case "A_MPEG/L3": return { codec: "mp3" };
    case "A_AC3": return { codec: "ac3" };
    case "A_EAC3": return { codec: "eac3" };
    case "A_ALAC": return { codec: "alac" };
    case "V_MPEG4/ISO/ASP": case "V_MPEG4/ISO/SP": case "V_MPEG4/ISO/AP": return mpeg4VisualConfig(priv);
    // A WAVEFORMATEX in CodecPrivate; format tag 0xA109 is Speex.
    case "A_MS/ACM": return priv && priv.length >= 2 && (priv[0]! | (priv[1]! << 8)) === 0xa109 ? { codec: "speex" } : undefined;
    default: return codecId.startsWith("A_AAC") && priv ? aacConfig(priv) : undefined;
  }
}

function pick(value: number | undefined): number {
  return value === undefined || value === 2 ? 1 : value;
}

function float(b: Uint8Array, o: number, size: number): number | undefined {
  if (o + size > b.length) return undefined;
  const view = new DataView(b.buffer, b.byteOffset + o, size);
  return size === 4 ? view.getFloat32(0) : size === 8 ? view.getFloat64(0) : undefined;
}

function text(b: Uint8Array, start: number, end: number): string {
  let s = "";
  for (let i = start; i < Math.min(end, b.length) && b[i] !== 0; i++) s += String.fromCharCode(b[i]!);
  return s;
}
