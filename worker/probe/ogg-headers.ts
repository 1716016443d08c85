import { ascii, u32le } from "../bytes/read-bytes.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";
import { readOggVp8Header, readTheoraHeader, type OggVideoHeader } from "./ogg-video.ts";

/** One logical stream of an Ogg file, from the identification header on its first (BOS) page. */
export interface OggStream {
  serial: number;
  kind: "audio" | "video" | "other";
  /** ffprobe's codec name. */
  codec?: string;
  sampleRate?: number;
  channels?: number;
  bitDepth?: number;
  /** Opus: samples (at 48 kHz) the decoder drops at the start; granules count them (RFC 7845 section 4). */
  preSkip?: number;
  /** Theora's and VP8's identification header: size, frame rate, pixel format, granule layout. */
  video?: OggVideoHeader;
}

/** Ogg page header (RFC 3533 section 6): 27 bytes, then the lacing table. */
const pageHeaderBytes = 27;
/** Multiplexed files begin with one BOS page per stream; real files have one to a few. */
const maxStreams = 16;

/**
 * Every stream's identification header, from the BOS pages that start an Ogg file (all of them precede any
 * data page, RFC 3533 section 4), read through the byte source: a few hundred bytes, always in the head.
 * music-metadata reads 13 pages for the same facts. Undefined when the bytes are not Ogg.
 */
export async function readOggHeaders(source: RangeByteSource): Promise<OggStream[] | undefined> {
  const streams: OggStream[] = [];
  let o = 0;
  for (let i = 0; i < maxStreams; i++) {
    const header = await source.read(o, pageHeaderBytes + 255);
    if (ascii(header, 0, 4) !== "OggS" || header.length < pageHeaderBytes) break;
    if (!((header[5] ?? 0) & 0x02)) break; // not a beginning-of-stream page: the headers are behind us
    const segments = header[26]!;
    let packet = 0;
    let pageData = 0;
    for (let s = 0; s < segments; s++) pageData += header[pageHeaderBytes + s] ?? 0;
    for (let s = 0; s < segments; s++) {
      const lace = header[pageHeaderBytes + s] ?? 0;
      packet += lace;
      if (lace < 255) break;
    }
    const dataAt = o + pageHeaderBytes + segments;
    const first = await source.read(dataAt, Math.min(packet, 256));
    streams.push(identify(first, u32le(header, 14) ?? 0));
    o = dataAt + pageData;
  }
  return streams.length > 0 ? streams : undefined;
}

function u16le(b: Uint8Array, o: number): number {
  return (b[o] ?? 0) | ((b[o + 1] ?? 0) << 8);
}

/** The codec from the identification packet's magic, and its rate and channels where it states them. */
function identify(p: Uint8Array, serial: number): OggStream {
  if (p[0] === 0x01 && ascii(p, 1, 6) === "vorbis") {
    return { serial, kind: "audio", codec: "vorbis", channels: p[11], sampleRate: u32le(p, 12) };
  }
  if (ascii(p, 0, 8) === "OpusHead") {
    // Opus always decodes at 48 kHz; the header's rate is only what the encoder was fed.
    return { serial, kind: "audio", codec: "opus", channels: p[9], sampleRate: 48000, preSkip: u16le(p, 10) };
  }
  if (p[0] === 0x7f && ascii(p, 1, 4) === "FLAC" && ascii(p, 9, 4) === "fLaC") {
    // STREAMINFO after its 4-byte block header: 20 bits of rate, 3 of channels - 1, 5 of bits per sample - 1.
    const at = 17 + 10;
    const rate = ((p[at] ?? 0) << 12) | ((p[at + 1] ?? 0) << 4) | ((p[at + 2] ?? 0) >> 4);
    const channels = (((p[at + 2] ?? 0) >> 1) & 0x07) + 1;
    const bitDepth = ((((p[at + 2] ?? 0) & 0x01) << 4) | ((p[at + 3] ?? 0) >> 4)) + 1;
    return { serial, kind: "audio", codec: "flac", sampleRate: rate, channels, bitDepth };
  }
  if (ascii(p, 0, 8) === "Speex   ") return { serial, kind: "audio", codec: "speex", sampleRate: u32le(p, 36), channels: u32le(p, 48) };
  if (p[0] === 0x80 && ascii(p, 1, 6) === "theora") return withVideo({ serial, kind: "video", codec: "theora" }, readTheoraHeader(p));
  // VP8 in Ogg: "OVP80" then header type 1 (the stream header).
  if (ascii(p, 0, 5) === "OVP80" && p[5] === 1) return withVideo({ serial, kind: "video", codec: "vp8" }, readOggVp8Header(p));
  return { serial, kind: "other" };
}

function withVideo(stream: OggStream, video: OggVideoHeader | undefined): OggStream {
  return video ? { ...stream, video } : stream;
}
