import { ascii, u32be, u32le } from "../../bytes/read-bytes.ts";

/** Frame count, one play's length and loop count of an image; frames = 1 for still images. */
export interface AnimationFacts {
  frames: number;
  /** Seconds of one play of every frame (animated only). */
  seconds?: number;
  /** 0 = forever (animated only). */
  loop?: number;
}

const u16le = (b: Uint8Array, o: number) => (o + 2 <= b.length ? b[o]! | (b[o + 1]! << 8) : 0);

/**
 * Walks every frame of a GIF (GIF89a: image descriptors, Graphic Control delays in 1/100 s, the NETSCAPE2.0
 * loop count). Undefined when the bytes end before the trailer: frames past them are unknown.
 */
export function gifAnimation(b: Uint8Array): AnimationFacts | undefined {
  if (ascii(b, 0, 3) !== "GIF" || b.length < 13) return undefined;
  const packed = b[10]!;
  let o = 13 + (packed & 0x80 ? 3 * (1 << ((packed & 0x07) + 1)) : 0);
  let frames = 0;
  let delay = 0;
  let loop: number | undefined;
  const skipSubBlocks = () => { while (o < b.length && b[o] !== 0) o += 1 + b[o]!; o += 1; };
  while (o < b.length) {
    const introducer = b[o];
    if (introducer === 0x3b) {
      if (frames <= 1) return { frames: Math.max(frames, 1) };
      return { frames, seconds: delay / 100, loop: loop ?? 1 };
    }
    if (introducer === 0x2c) {
      frames++;
      const local = b[o + 9] ?? 0;
      o += 10 + (local & 0x80 ? 3 * (1 << ((local & 0x07) + 1)) : 0) + 1; // descriptor, local table, LZW code size
      skipSubBlocks();
      continue;
    }
    if (introducer !== 0x21) return undefined;
    const label = b[o + 1];
    if (label === 0xf9) delay += u16le(b, o + 4);
    // NETSCAPE2.0 application extension: sub-block [1, loop lo, loop hi]; 0 plays forever.
    if (label === 0xff && ascii(b, o + 3, 11) === "NETSCAPE2.0" && b[o + 15] === 1) loop = u16le(b, o + 16);
    o += 2;
    skipSubBlocks();
  }
  return undefined;
}

/** WebP: VP8X's animation flag, ANIM's loop count, each ANMF frame's 24-bit duration (ms). */
export function webpAnimation(b: Uint8Array): AnimationFacts | undefined {
  if (ascii(b, 0, 4) !== "RIFF" || ascii(b, 8, 4) !== "WEBP") return undefined;
  if (ascii(b, 12, 4) !== "VP8X" || !((b[20] ?? 0) & 0x02)) return { frames: 1 };
  const riffEnd = (u32le(b, 4) ?? 0) + 8;
  if (riffEnd > b.length) return undefined; // the frames run past the bytes we have
  let frames = 0;
  let ms = 0;
  let loop = 0;
  for (let o = 12; o + 8 <= riffEnd;) {
    const size = u32le(b, o + 4) ?? 0;
    const type = ascii(b, o, 4);
    if (type === "ANIM") loop = u16le(b, o + 8 + 4);
    if (type === "ANMF") { frames++; ms += b[o + 8 + 12]! | (b[o + 8 + 13]! << 8) | (b[o + 8 + 14]! << 16); }
    o += 8 + size + (size & 1);
  }
  return frames > 0 ? { frames, seconds: ms / 1000, loop } : undefined;
}

/** APNG: acTL (frame count, plays) sits before the first IDAT; a PNG without it is one frame. */
export function pngAnimation(b: Uint8Array): AnimationFacts | undefined {
  for (let o = 8; o + 12 <= b.length;) {
    const length = u32be(b, o) ?? 0;
    const type = ascii(b, o + 4, 4);
    if (type === "acTL") return { frames: u32be(b, o + 8) ?? 1, loop: u32be(b, o + 12) ?? 0 };
    if (type === "IDAT") return { frames: 1 };
    o += 12 + length;
  }
  return undefined;
}

/** Formats that only hold still images here (HEIF/AVIF sequences are reported by the runner). */
export const stillFormats = new Set(["jpeg", "bmp", "ico", "cur", "tiff", "svg", "jxl", "heif", "avif", "psd", "tga", "dds", "ktx", "pnm", "j2c", "jp2"]);

export function animationFacts(format: string, b: Uint8Array): AnimationFacts | undefined {
  if (format === "gif") return gifAnimation(b);
  if (format === "webp") return webpAnimation(b);
  if (format === "png") return pngAnimation(b);
  return stillFormats.has(format) ? { frames: 1 } : undefined;
}
