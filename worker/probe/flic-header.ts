import type { HeaderFacts } from "./header-facts.ts";

/**
 * Autodesk Animator FLI/FLC: a 128-byte header (size, magic 0xAF11/0xAF12, frame count, width, height, depth 8,
 * flags, speed) followed by frame chunks (0xF1FA, or an FLC prefix chunk 0xF100). The speed is in 1/70 s
 * jiffies for FLI and milliseconds for FLC; the frame rate is its inverse, as ffmpeg's flic demuxer reports it.
 * Fixed-offset reads of one header.
 */
const fliMagic = 0xaf11;
const flcMagic = 0xaf12;
const frameChunk = 0xf1fa;
const prefixChunk = 0xf100;

const u16 = (b: Uint8Array, o: number) => b[o]! | (b[o + 1]! << 8);
const u32 = (b: Uint8Array, o: number) => (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;

export const flicMime = "video/x-flic";

export function isFlic(b: Uint8Array): boolean {
  if (b.length < 134) return false;
  const magic = u16(b, 4);
  const chunk = u16(b, 132);
  return (magic === fliMagic || magic === flcMagic) && u16(b, 8) > 0 && u16(b, 10) > 0 && (u16(b, 12) === 8 || u16(b, 12) === 0)
    && (chunk === frameChunk || chunk === prefixChunk);
}

export function readFlic(head: Uint8Array): HeaderFacts | undefined {
  if (!isFlic(head)) return undefined;
  const frames = u16(head, 6);
  const speed = u32(head, 16);
  // FLI counts 1/70 s; FLC milliseconds. A speed of 0 means "as fast as possible": no rate to state.
  const frameSeconds = u16(head, 4) === fliMagic ? speed / 70 : speed / 1000;
  const facts: HeaderFacts = { video: 1, audio: 0, width: u16(head, 8), height: u16(head, 10), videoCodec: "flic", reader: "flic-header" };
  if (frameSeconds > 0) {
    facts.fps = 1 / frameSeconds;
    if (frames > 0) { facts.durationSeconds = frames * frameSeconds; facts.durationFrom = "header"; }
  }
  return facts;
}
