import type { RangeByteSource } from "../bytes/byte-source.ts";
import type { HeaderFacts } from "./header-facts.ts";
import { packetSizeOf } from "./mpegts-psi.ts";
import { readMpegTsStreams, type TsElementaryStream } from "./mpegts-streams.ts";
import { findSps } from "./h264-sps.ts";
import { mpegAudioHeader } from "./mpeg-audio-header.ts";
import { readAdts } from "./adts-frames.ts";
import { readAc3 } from "./ac3-frames.ts";

/**
 * An MPEG transport stream's facts from its head and one suffix read: the PMT's streams, each stream's codec
 * header (an H.264 SPS, an MPEG-2 sequence header, an audio frame header, taken from the first PES that starts
 * a random access point, so a segment cut before its first keyframe still gives one), and the PTS of the first
 * PES in the head and the last in the tail. Packets are stepped by their fixed size; no byte search beyond one
 * packet for the tail's first sync.
 *
 * Timing follows ffprobe's: the duration runs from the earliest first PTS of any stream to the end of the
 * timing stream's last frame, every PTS taken relative to the first video PTS modulo 2^33, so a segment whose
 * clock rolls over is as long as one whose clock does not. Where the codec header states no frame rate (HEVC, an
 * SPS without timing), it is the video PTS step in the head, as r_frame_rate is (the shortest step between
 * distinct presentation times, snapped to the standard rate it rounds).
 */
const tailBytes = 188 * 128;
/** Bytes read past the head, in windows, for a segment whose first keyframe (and its SPS) is not in the head. */
const maxKeyframeSearchBytes = 1024 * 1024;
/** One window of that search; also read once when a stream's first PES (its start time) is past the head. */
const searchWindowBytes = 188 * 348;
/** Bytes of a stream's first PES payload kept for its codec header (an SPS sits in the first packet or two). */
const payloadBytes = 188 * 4;
/** Video PTS values kept from the head for the frame rate; two GOPs of B-frame reordering fit. */
const maxVideoPts = 64;
const ptsWrap = 2 ** 33;
const mpeg2FrameRates = [0, 24000 / 1001, 24, 25, 30000 / 1001, 30, 50, 60000 / 1001, 60] as const;
/** Frame rates a measured PTS step snaps to when within 0.1 % (r_frame_rate's standard rates). */
const standardRates = [24000 / 1001, 24, 25, 30000 / 1001, 30, 48, 50, 60000 / 1001, 60, 100, 120000 / 1001, 120] as const;
/** Samples per frame of the audio codecs a TS carries, for the end of an audio-only stream's last frame. */
const audioFrameSamples: Readonly<Record<string, number>> = { aac: 1024, mp2: 1152, mp3: 1152, mp1: 384, ac3: 1536, eac3: 1536 };
/** AC-3 and E-AC-3 stream types: ATSC 0x81 and 0x87, DVB private data 0x06 (descriptor 0x6a / 0x7a). */
const ac3StreamTypes = new Set([0x81, 0x87, 0x06]);

interface PesWalk {
  first: Map<number, number>;
  last: Map<number, number>;
  payload: Map<number, Uint8Array>;
  /** The pids whose kept payload starts at a random access point (it is final). */
  keyed: Set<number>;
  /** Video presentation times in the head, for the frame rate. */
  videoPts: number[];
}

const newWalk = (): PesWalk => ({ first: new Map(), last: new Map(), payload: new Map(), keyed: new Set(), videoPts: [] });

/** PTS (90 kHz) of a PES header at `p`, when it has one. */
function ptsAt(b: Uint8Array, p: number): number | undefined {
  if (b[p] !== 0 || b[p + 1] !== 0 || b[p + 2] !== 1 || p + 14 > b.length) return undefined;
  if ((b[p + 6]! & 0xc0) !== 0x80 || !(b[p + 7]! & 0x80)) return undefined;
  const t = b.subarray(p + 9, p + 14);
  return ((t[0]! >> 1) & 7) * 2 ** 30 + (t[1]! << 22 | (t[2]! >> 1) << 15 | t[3]! << 7 | t[4]! >> 1);
}

/** The adaptation field's random_access_indicator (a keyframe starts in this packet). */
const randomAccess = (b: Uint8Array, o: number, control: number) => (control & 2) !== 0 && b[o + 4]! > 0 && (b[o + 5]! & 0x40) !== 0;

function walk(b: Uint8Array, pids: ReadonlySet<number>, out: PesWalk, keepPayload: boolean, videoPid?: number): void {
  const layout = packetSizeOf(b);
  if (!layout) return;
  for (let o = layout.start; o + 188 <= b.length; o += layout.size) {
    if (b[o] !== 0x47) return;
    const pid = ((b[o + 1]! & 0x1f) << 8) | b[o + 2]!;
    const control = (b[o + 3]! >> 4) & 3;
    if (!pids.has(pid) || !(control & 1)) continue;
    const p = o + 4 + (control & 2 ? 1 + b[o + 4]! : 0);
    if (p >= o + 188) continue;
    const held = out.payload.get(pid);
    if (b[o + 1]! & 0x40) {
      const pts = ptsAt(b, p);
      if (pts !== undefined) {
        if (!out.first.has(pid)) out.first.set(pid, pts);
        out.last.set(pid, pts);
        if (pid === videoPid && out.videoPts.length < maxVideoPts) out.videoPts.push(pts);
      }
      // The first PES, replaced once by the first that starts a random access point (video before its keyframe).
      const key = randomAccess(b, o, control);
      const replace = !held || (pid === videoPid && key && !out.keyed.has(pid));
      if (keepPayload && replace && (b[p + 6]! & 0xc0) === 0x80) {
        out.payload.set(pid, b.slice(Math.min(p + 9 + b[p + 8]!, o + 188), o + 188));
        if (key) out.keyed.add(pid);
      }
    } else if (keepPayload && held && held.length < payloadBytes) {
      const grown = new Uint8Array(held.length + (o + 188 - p));
      grown.set(held);
      grown.set(b.subarray(p, o + 188), held.length);
      out.payload.set(pid, grown);
    }
  }
}

/**
 * The head ends before what the facts need: a segment cut before its first keyframe (no SPS yet), or a stream
 * whose first PES (its start time) comes after the head. Windows after the head are walked, aligned to the
 * packets, until the keyframe is found (at most maxKeyframeSearchBytes) or, for a late stream, one window.
 */
async function readPastHead(source: RangeByteSource, head: Uint8Array, pids: ReadonlySet<number>, seen: PesWalk, videoPid?: number): Promise<void> {
  const layout = packetSizeOf(head);
  const size = source.size;
  if (!layout || size === undefined) return;
  let offset = layout.start + Math.floor((head.length - layout.start) / layout.size) * layout.size;
  const limit = Math.min(size, offset + maxKeyframeSearchBytes);
  for (let window = 0; offset < limit; window++) {
    const needsKeyframe = videoPid !== undefined && !seen.keyed.has(videoPid);
    const lateStream = window === 0 && [...pids].some((pid) => !seen.first.has(pid));
    if (!needsKeyframe && !lateStream) return;
    const length = Math.min(searchWindowBytes - (searchWindowBytes % layout.size), limit - offset);
    const bytes = await source.read(offset, length);
    if (bytes.length < layout.size) return;
    walk(bytes, pids, seen, true, videoPid);
    offset += bytes.length - (bytes.length % layout.size);
  }
}

/** `pts` relative to `reference` on the 2^33 clock, in [-2^32, 2^32): a rollover between them is undone. */
const relative = (pts: number, reference: number) => ((pts - reference + ptsWrap + ptsWrap / 2) % ptsWrap) - ptsWrap / 2;

/** The frame rate from presentation times: the shortest step between distinct ones, snapped to a standard rate. */
export function frameRateFromPts(pts: readonly number[]): number | undefined {
  if (pts.length < 3) return undefined;
  const times = [...new Set(pts.map((t) => relative(t, pts[0]!)))].sort((a, b) => a - b);
  let step = Infinity;
  for (let i = 1; i < times.length; i++) step = Math.min(step, times[i]! - times[i - 1]!);
  if (!Number.isFinite(step) || step <= 0) return undefined;
  const rate = 90000 / step;
  return standardRates.find((r) => Math.abs(r - rate) / r < 0.001) ?? Math.round(rate * 1000) / 1000;
}

export async function readMpegTs(source: RangeByteSource, head: Uint8Array): Promise<HeaderFacts | undefined> {
  const programs = readMpegTsStreams(head);
  if (!programs) return undefined;
  const facts: HeaderFacts = { video: programs.video, audio: programs.audio, reader: "mpegts-pmt" };
  const streams = programs.streams;
  const pids = new Set(streams.map((s) => s.pid));
  const video = streams.find((s) => s.kind === "video");
  const audio = streams.find((s) => s.kind === "audio");
  const seen = newWalk();
  walk(head, pids, seen, true, video?.pid);
  await readPastHead(source, head, pids, seen, video?.pid);
  if (video) videoHeader(video, seen.payload.get(video.pid), facts);
  if (video && facts.fps === undefined) {
    const fps = frameRateFromPts(seen.videoPts);
    if (fps !== undefined) facts.fps = fps;
  }
  if (audio) audioHeader(audio, seen.payload.get(audio.pid), facts);
  const size = source.size;
  if (size !== undefined) {
    const from = Math.max(0, size - tailBytes);
    const tail = from <= head.length ? head.subarray(from) : await source.read(from, size - from);
    const end = newWalk();
    walk(tail, pids, end, false);
    // The timing stream: video when there is one (its last frame ends the file, as ffprobe's duration has it).
    const timing = video ?? audio;
    const reference = timing && seen.first.get(timing.pid);
    const last = timing && end.last.get(timing.pid);
    if (reference !== undefined && last !== undefined) {
      const starts = [...seen.first.values()].map((t) => relative(t, reference)).filter((t) => Math.abs(t) < 90000 * 60);
      const start = Math.min(0, ...starts);
      const frame = video ? 1 / (facts.fps ?? 25) : (audioFrameSamples[facts.audioCodec ?? ""] ?? 1152) / (facts.sampleRate ?? 48000);
      const span = (relative(last, reference) - start) / 90000;
      if (span > 0) { facts.durationSeconds = span + frame; facts.durationFrom = "packets-counted"; }
    }
  }
  return facts;
}

function videoHeader(stream: TsElementaryStream, payload: Uint8Array | undefined, facts: HeaderFacts): void {
  if (!payload) return;
  if (stream.type === 0x1b) {
    facts.videoCodec = "h264";
    const sps = findSps(payload);
    if (sps) { facts.width = sps.width; facts.height = sps.height; if (sps.fps) facts.fps = sps.fps; }
  }
  if (stream.type === 0x01 || stream.type === 0x02) {
    facts.videoCodec = stream.type === 0x01 ? "mpeg1video" : "mpeg2video";
    for (let i = 0; i + 8 <= payload.length; i++) {
      if (payload[i] === 0 && payload[i + 1] === 0 && payload[i + 2] === 1 && payload[i + 3] === 0xb3) {
        facts.width = (payload[i + 4]! << 4) | (payload[i + 5]! >> 4);
        facts.height = ((payload[i + 5]! & 0x0f) << 8) | payload[i + 6]!;
        const rate = mpeg2FrameRates[payload[i + 7]! & 0x0f];
        if (rate) facts.fps = rate;
        break;
      }
    }
  }
  if (stream.type === 0x24) facts.videoCodec = "hevc";
}

function audioHeader(stream: TsElementaryStream, payload: Uint8Array | undefined, facts: HeaderFacts): void {
  if (!payload) return;
  const mpeg = stream.type === 0x03 || stream.type === 0x04 ? mpegAudioHeader(payload, 0) : undefined;
  const adts = stream.type === 0x0f ? readAdts(payload, payload.length) : undefined;
  const ac3 = ac3StreamTypes.has(stream.type) ? readAc3(payload, payload.length) : undefined;
  const found = mpeg ?? (adts && { codec: "aac", sampleRate: adts.sampleRate, channels: adts.channels })
    ?? (ac3 && { codec: ac3.audioCodec, sampleRate: ac3.sampleRate, channels: ac3.channels });
  if (!found) return;
  facts.audioCodec = found.codec;
  facts.sampleRate = found.sampleRate;
  facts.channels = found.channels;
}
