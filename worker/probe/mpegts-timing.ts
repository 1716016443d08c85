import type { RangeByteSource } from "../bytes/byte-source.ts";
import type { HeaderFacts } from "./header-facts.ts";
import { packetSizeOf, readMpegTsStreams, type TsElementaryStream } from "./mpegts-streams.ts";
import { findSps } from "./h264-sps.ts";
import { mpegAudioHeader } from "./mpeg-audio-header.ts";
import { readAdts } from "./adts-frames.ts";
import { readAc3 } from "./ac3-frames.ts";

/**
 * An MPEG transport stream's facts from its head and one suffix read: the PMT's streams, each stream's first
 * PES payload (the codec header: an H.264 SPS, an MPEG-2 sequence header, an audio frame header) and the PTS of
 * the first PES in the head and the last in the tail, whose span is the duration. Packets are stepped by their
 * fixed size; no byte search beyond one packet for the tail's first sync.
 */
const tailBytes = 188 * 128;
/** Bytes of a stream's first PES payload kept for its codec header (an SPS sits in the first packet or two). */
const payloadBytes = 188 * 4;
const ptsWrap = 2 ** 33;
const mpeg2FrameRates = [0, 24000 / 1001, 24, 25, 30000 / 1001, 30, 50, 60000 / 1001, 60] as const;

interface PesWalk { first: Map<number, number>; last: Map<number, number>; payload: Map<number, Uint8Array> }

/** PTS (90 kHz) of a PES header at `p`, when it has one. */
function ptsAt(b: Uint8Array, p: number): number | undefined {
  if (b[p] !== 0 || b[p + 1] !== 0 || b[p + 2] !== 1 || p + 14 > b.length) return undefined;
  if ((b[p + 6]! & 0xc0) !== 0x80 || !(b[p + 7]! & 0x80)) return undefined;
  const t = b.subarray(p + 9, p + 14);
  return ((t[0]! >> 1) & 7) * 2 ** 30 + (t[1]! << 22 | (t[2]! >> 1) << 15 | t[3]! << 7 | t[4]! >> 1);
}

function walk(b: Uint8Array, pids: ReadonlySet<number>, out: PesWalk, keepPayload: boolean): void {
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
      }
      if (keepPayload && !held && (b[p + 6]! & 0xc0) === 0x80) out.payload.set(pid, b.slice(p + 9 + b[p + 8]!, o + 188));
    } else if (keepPayload && held && held.length < payloadBytes) {
      const grown = new Uint8Array(held.length + (o + 188 - p));
      grown.set(held);
      grown.set(b.subarray(p, o + 188), held.length);
      out.payload.set(pid, grown);
    }
  }
}

export async function readMpegTs(source: RangeByteSource, head: Uint8Array): Promise<HeaderFacts | undefined> {
  const programs = readMpegTsStreams(head);
  if (!programs) return undefined;
  const facts: HeaderFacts = { video: programs.video, audio: programs.audio, reader: "mpegts-pmt" };
  const streams = programs.streams;
  const pids = new Set(streams.map((s) => s.pid));
  const seen: PesWalk = { first: new Map(), last: new Map(), payload: new Map() };
  walk(head, pids, seen, true);
  const video = streams.find((s) => s.kind === "video");
  const audio = streams.find((s) => s.kind === "audio");
  if (video) videoHeader(video, seen.payload.get(video.pid), facts);
  if (audio) audioHeader(audio, seen.payload.get(audio.pid), facts);
  const size = source.size;
  if (size !== undefined) {
    const from = Math.max(0, size - tailBytes);
    const tail = from <= head.length ? head.subarray(from) : await source.read(from, size - from);
    const end: PesWalk = { first: new Map(), last: new Map(), payload: new Map() };
    walk(tail, pids, end, false);
    // The timing stream: video when there is one (its PTS span is what ffprobe's duration follows).
    const timing = video ?? audio;
    const first = timing && seen.first.get(timing.pid);
    const last = timing && end.last.get(timing.pid);
    if (first !== undefined && last !== undefined) {
      const span = ((last - first + ptsWrap) % ptsWrap) / 90000;
      // The last PES lasts one frame more: a video frame, or an audio frame's 1152/1024 samples at most.
      const frame = video ? 1 / (facts.fps ?? 25) : 1152 / (facts.sampleRate ?? 48000);
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
  const ac3 = stream.type === 0x81 || stream.type === 0x06 ? readAc3(payload, payload.length) : undefined;
  const found = mpeg ?? (adts && { codec: "aac", sampleRate: adts.sampleRate, channels: adts.channels })
    ?? (ac3 && { codec: ac3.audioCodec, sampleRate: ac3.sampleRate, channels: ac3.channels });
  if (!found) return;
  facts.audioCodec = found.codec;
  facts.sampleRate = found.sampleRate;
  facts.channels = found.channels;
}
