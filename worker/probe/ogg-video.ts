/**
 * The identification headers of Ogg's video codecs, at fixed offsets: Theora's (Theora specification 6.2:
 * picture size, frame rate, aspect ratio, pixel format, the granule shift) and VP8's "OVP80" stream header
 * (the VP8 Ogg mapping: size, aspect ratio, frame rate). With the granule position of the stream's last page
 * they give its duration, as ffmpeg's oggparsetheora.c / oggparsevp8.c compute it.
 */
import { ascii } from "../bytes/read-bytes.ts";

export interface OggVideoHeader {
  codec: "theora" | "vp8";
  width: number;
  height: number;
  /** Frame rate as a fraction: the granule's frame count times den / num is seconds. */
  rate?: { num: number; den: number };
  sampleAspectRatio?: { num: number; den: number };
  pixelFormat?: string;
  /** Theora: the low bits of a granule that count frames since the last keyframe. */
  granuleShift?: number;
  /** Theora before 3.2.1 numbered frames from 0, later versions from 1. */
  countsFromZero?: boolean;
}

const u16be = (b: Uint8Array, o: number) => ((b[o] ?? 0) << 8) | (b[o + 1] ?? 0);
const u24be = (b: Uint8Array, o: number) => ((b[o] ?? 0) << 16) | ((b[o + 1] ?? 0) << 8) | (b[o + 2] ?? 0);
const u32be = (b: Uint8Array, o: number) => (((b[o] ?? 0) << 24) | ((b[o + 1] ?? 0) << 16) | ((b[o + 2] ?? 0) << 8) | (b[o + 3] ?? 0)) >>> 0;

const fraction = (num: number, den: number) => (num > 0 && den > 0 ? { num, den } : undefined);
const theoraPixelFormats = ["yuv420p", undefined, "yuv422p", "yuv444p"] as const;

/** Theora's identification header (0x80 "theora", 42 bytes). */
export function readTheoraHeader(p: Uint8Array): OggVideoHeader | undefined {
  if (p.length < 42 || p[0] !== 0x80 || ascii(p, 1, 6) !== "theora") return undefined;
  const version = u24be(p, 7);
  // Versions before 3.2 have no picture region: the frame is the picture.
  const width = version >= 0x030200 ? u24be(p, 14) : u16be(p, 10) * 16;
  const height = version >= 0x030200 ? u24be(p, 17) : u16be(p, 12) * 16;
  if (width === 0 || height === 0) return undefined;
  const packed = u16be(p, 40);
  return {
    codec: "theora", width, height, rate: fraction(u32be(p, 22), u32be(p, 26)), sampleAspectRatio: fraction(u24be(p, 30), u24be(p, 33)),
    pixelFormat: theoraPixelFormats[(packed >> 3) & 3], granuleShift: (packed >> 5) & 0x1f, countsFromZero: version < 0x030201,
  };
}

/** VP8's Ogg stream header ("OVP80", type 1, 26 bytes). */
export function readOggVp8Header(p: Uint8Array): OggVideoHeader | undefined {
  if (p.length < 26 || ascii(p, 0, 5) !== "OVP80" || p[5] !== 1) return undefined;
  const width = u16be(p, 8);
  const height = u16be(p, 10);
  if (width === 0 || height === 0) return undefined;
  return { codec: "vp8", width, height, sampleAspectRatio: fraction(u24be(p, 12), u24be(p, 15)), rate: fraction(u32be(p, 18), u32be(p, 22)), pixelFormat: "yuv420p" };
}

/** Seconds a video stream's granule position stands for: its frame count over the frame rate. */
export function oggVideoSeconds(header: OggVideoHeader, high: number, low: number): number | undefined {
  if (!header.rate) return undefined;
  let frames: number;
  if (header.codec === "vp8") frames = high; // the presentation frame number sits in the upper 32 bits
  else {
    const shift = header.granuleShift ?? 0;
    const granule = high * 2 ** 32 + low;
    const keyframe = Math.floor(granule / 2 ** shift);
    frames = keyframe + (granule - keyframe * 2 ** shift) + (header.countsFromZero ? 1 : 0);
  }
  return (frames * header.rate.den) / header.rate.num;
}
