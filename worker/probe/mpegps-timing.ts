import type { RangeByteSource } from "../bytes/byte-source.ts";
import type { HeaderFacts } from "./header-facts.ts";
import { readMpegPsStreams } from "./mpegps-streams.ts";
import { findSps } from "./h264-sps.ts";
import { mpegAudioHeader } from "./mpeg-audio-header.ts";
import { readAc3 } from "./ac3-frames.ts";
import { mpegPsPayloadBytes, mpegPsTailBytes } from "../config/limits.ts";

/**
 * An MPEG program stream's facts (ISO 11172-1 / 13818-1 2.5) from its head and one suffix read: the packs'
 * streams, each stream's first PES payload (an MPEG-1/2 sequence header or an H.264 SPS; an MPEG audio, AC-3 or
 * LPCM header) and the PTS of each stream's packets at the head and the tail, whose span is the duration, as
 * ffprobe estimates it from timestamps. Packs and packets are stepped by their own length fields; the only
 * search is for the tail's first pack header, once over the suffix.
 */
const ptsWrap = 2 ** 33;
const mpegVideoRates = [0, 24000 / 1001, 24, 25, 30000 / 1001, 30, 50, 60000 / 1001, 60] as const;
const lpcmRates = [48000, 96000, 44100, 32000] as const;

interface Pes { stream: number; pts?: number; payload: Uint8Array }
interface StreamSeen { first?: number; last?: number; payload?: Uint8Array }

const startCode = (b: Uint8Array, o: number) => b[o] === 0 && b[o + 1] === 0 && b[o + 2] === 1;

function timestamp(b: Uint8Array, p: number): number {
  return ((b[p]! >> 1) & 7) * 2 ** 30 + (b[p + 1]! << 22 | (b[p + 2]! >> 1) << 15 | b[p + 3]! << 7 | b[p + 4]! >> 1);
}

/** PTS and payload start of a PES packet whose 6-byte prefix is at `o` and which ends at `end`: MPEG-2 or MPEG-1 syntax. */
function pesHeader(b: Uint8Array, o: number, end: number): { pts?: number; payload: number } | undefined {
  if ((b[o + 6]! & 0xc0) === 0x80) {
    const payload = o + 9 + b[o + 8]!;
    return { pts: b[o + 7]! & 0x80 && o + 14 <= end ? timestamp(b, o + 9) : undefined, payload };
  }
  // MPEG-1: up to 16 stuffing bytes, an optional STD buffer field, then '0010' PTS, '0011' PTS+DTS or 0x0F.
  let p = o + 6;
  for (let n = 0; n < 16 && b[p] === 0xff; n++) p++;
  if ((b[p]! & 0xc0) === 0x40) p += 2;
  if ((b[p]! & 0xe0) === 0x20 && p + 5 <= end) return { pts: timestamp(b, p), payload: p + ((b[p]! & 0xf0) === 0x30 ? 10 : 5) };
  return b[p] === 0x0f ? { payload: p + 1 } : undefined;
}

/** Every PES packet from a pack header at `start` until the bytes end or stop being a program stream. */
function* packets(b: Uint8Array, start: number): Generator<Pes> {
  for (let o = start; o + 6 <= b.length;) {
    if (!startCode(b, o)) return;
    const id = b[o + 3]!;
    if (id === 0xb9) return;
    if (id === 0xba) {
      o += (b[o + 4]! & 0xc0) === 0x40 ? 14 + (b[o + 13]! & 0x07) : 12;
      continue;
    }
    if (id < 0xbb) return;
    const end = o + 6 + ((b[o + 4]! << 8) | b[o + 5]!);
    const media = (id >= 0xc0 && id <= 0xef) || id === 0xbd;
    const header = media ? pesHeader(b, o, Math.min(end, b.length)) : undefined;
    if (header && header.payload < Math.min(end, b.length)) {
      const payload = b.subarray(header.payload, Math.min(end, b.length));
      // private_stream_1: the first payload byte is the DVD sub-stream id (AC-3 0x80-0x87, DTS 0x88-0x8F, LPCM 0xA0-0xAF).
      const stream = id === 0xbd ? 0x100 + payload[0]! : id;
      yield { stream, pts: header.pts, payload };
    }
    o = end;
  }
}

function collect(b: Uint8Array, start: number, seen: Map<number, StreamSeen>, keepPayload: boolean): void {
  for (const pes of packets(b, start)) {
    const s = seen.get(pes.stream) ?? {};
    seen.set(pes.stream, s);
    // Decode order is not display order (B-frames): the earliest and latest PTS seen, not the first and last.
    if (pes.pts !== undefined) {
      if (s.first === undefined || pes.pts < s.first) s.first = pes.pts;
      if (s.last === undefined || pes.pts > s.last) s.last = pes.pts;
    }
    if (keepPayload && (s.payload?.length ?? 0) < mpegPsPayloadBytes) {
      const held = s.payload ?? new Uint8Array(0);
      const grown = new Uint8Array(Math.min(mpegPsPayloadBytes, held.length + pes.payload.length));
      grown.set(held);
      grown.set(pes.payload.subarray(0, grown.length - held.length), held.length);
      s.payload = grown;
    }
  }
}

/** The tail's first pack header whose pack is followed by another start code (a chance 00 00 01 BA in a payload is not). */
function firstPack(b: Uint8Array): number | undefined {
  for (let o = 0; o + 14 <= b.length; o++) {
    if (!(startCode(b, o) && b[o + 3] === 0xba)) continue;
    const next = o + ((b[o + 4]! & 0xc0) === 0x40 ? 14 + (b[o + 13]! & 0x07) : 12);
    if (next + 4 > b.length || (startCode(b, next) && b[next + 3]! >= 0xb9)) return o;
  }
  return undefined;
}

const isVideo = (s: number) => s >= 0xe0 && s <= 0xef;
const isAudio = (s: number) => (s >= 0xc0 && s <= 0xdf) || (s >= 0x180 && s <= 0x18f) || (s >= 0x1a0 && s <= 0x1af);

export async function readMpegPs(source: RangeByteSource, head: Uint8Array): Promise<HeaderFacts | undefined> {
  const streams = readMpegPsStreams(head);
  if (!streams) return undefined;
  const facts: HeaderFacts = { video: streams.video, audio: streams.audio, reader: "mpegps-packs" };
  const seen = new Map<number, StreamSeen>();
  collect(head, 0, seen, true);
  const ids = [...seen.keys()].sort((x, y) => x - y);
  const video = ids.find(isVideo);
  const audio = ids.find(isAudio);
  const frameSeconds = new Map<number, number>();
  if (video !== undefined) {
    const fps = videoHeader(seen.get(video)!.payload, facts);
    if (fps) frameSeconds.set(video, 1 / fps);
  }
  if (audio !== undefined) {
    const samples = audioHeader(audio, seen.get(audio)!.payload, facts);
    if (samples && facts.sampleRate) frameSeconds.set(audio, samples / facts.sampleRate);
  }
  const size = source.size;
  if (size === undefined) return facts;
  const from = Math.max(0, size - mpegPsTailBytes);
  const tail = from <= head.length ? head.subarray(from) : await source.read(from, size - from);
  const start = firstPack(tail);
  const end = new Map<number, StreamSeen>();
  if (start !== undefined) collect(tail, start, end, false);
  // ffprobe's duration from timestamps: the latest end (last PTS plus that stream's frame) over the earliest start.
  let first: number | undefined;
  let last: number | undefined;
  for (const id of [video, audio]) {
    if (id === undefined) continue;
    const a = seen.get(id)?.first;
    const z = end.get(id)?.last;
    if (a === undefined || z === undefined) continue;
    const span = ((z - a + ptsWrap) % ptsWrap) / 90000 + (frameSeconds.get(id) ?? 0);
    if (first === undefined || a < first) first = a;
    if (last === undefined || a + span * 90000 > last) last = a + span * 90000;
  }
  if (first !== undefined && last !== undefined && last > first) {
    facts.durationSeconds = (last - first) / 90000;
    facts.durationFrom = "packets-counted";
  }
  return facts;
}

/** Codec, size and frame rate from the first video payload; returns the frame rate. */
function videoHeader(payload: Uint8Array | undefined, facts: HeaderFacts): number | undefined {
  if (!payload) return undefined;
  for (let i = 0; i + 8 <= payload.length; i++) {
    if (!(startCode(payload, i) && payload[i + 3] === 0xb3)) continue;
    facts.width = (payload[i + 4]! << 4) | (payload[i + 5]! >> 4);
    facts.height = ((payload[i + 5]! & 0x0f) << 8) | payload[i + 6]!;
    const rate = mpegVideoRates[payload[i + 7]! & 0x0f];
    if (rate) facts.fps = rate;
    // A sequence extension (start code B5, extension id 1) follows the sequence header only in MPEG-2 video.
    facts.videoCodec = "mpeg1video";
    for (let j = i + 12; j + 5 <= payload.length; j++) {
      if (startCode(payload, j) && payload[j + 3] === 0xb5 && payload[j + 4]! >> 4 === 1) { facts.videoCodec = "mpeg2video"; break; }
      if (startCode(payload, j) && payload[j + 3] === 0x00) break; // the first picture: no extension came
    }
    return facts.fps;
  }
  const sps = findSps(payload);
  if (!sps) return undefined;
  facts.videoCodec = "h264";
  facts.width = sps.width;
  facts.height = sps.height;
  if (sps.fps) facts.fps = sps.fps;
  return facts.fps;
}

/** Bytes searched for an MPEG audio frame header in the first payload (a PES need not start on a frame). */
const maxAudioSync = 1024;

/** Codec, sample rate and channels of the first audio stream; returns its samples per frame, when known. */
function audioHeader(stream: number, payload: Uint8Array | undefined, facts: HeaderFacts): number | undefined {
  if (!payload) return undefined;
  if (stream < 0x100) {
    for (let i = 0; i < Math.min(payload.length - 4, maxAudioSync); i++) {
      const found = mpegAudioHeader(payload, i);
      if (!found) continue;
      Object.assign(facts, { audioCodec: found.codec, sampleRate: found.sampleRate, channels: found.channels });
      const mpeg1 = ((payload[i + 1]! >> 3) & 3) === 3;
      return found.codec === "mp1" ? 384 : found.codec === "mp3" && !mpeg1 ? 576 : 1152;
    }
    return undefined;
  }
  // DVD private stream 1: a sub-stream header (id, frame count, first access unit pointer) before the frames.
  if (stream >= 0x180 && stream <= 0x187) {
    const ac3 = readAc3(payload.subarray(4), payload.length - 4);
    if (!ac3) return undefined;
    Object.assign(facts, { audioCodec: ac3.audioCodec, sampleRate: ac3.sampleRate, channels: ac3.channels });
    return 1536;
  }
  if (stream >= 0x1a0 && stream <= 0x1af && payload.length >= 7) {
    // LPCM: byte 5 holds the word length (16/20/24 bits) and the sample rate; its low bits the channels minus one.
    const rate = lpcmRates[(payload[5]! >> 4) & 3];
    Object.assign(facts, { audioCodec: "pcm_dvd", sampleRate: rate, channels: (payload[5]! & 7) + 1, bitDepth: [16, 20, 24][payload[5]! >> 6] });
    return undefined;
  }
  if (stream >= 0x188 && stream <= 0x18f) facts.audioCodec = "dts";
  return undefined;
}
