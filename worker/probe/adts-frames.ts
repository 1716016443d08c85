import type { HeaderFacts } from "./header-facts.ts";

/**
 * ADTS AAC (ISO 14496-3 1.A.2): each frame's 7-byte header gives the sampling frequency index, the channel
 * configuration and the frame's length. The frames in the head are hopped header to header (a bounded count, no
 * scanning inside them); their mean length, over the file's size, gives the frame count and so the duration, as
 * ffprobe estimates it. One frame is 1024 samples.
 */
const sampleRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350] as const;
/** Frames hopped in the head to average their length. */
const maxFrames = 256;
/**
 * Frames hopped when the bytes hold the whole file (an HLS packed-audio segment behind its ID3 timestamp tag):
 * then every frame is counted and the duration is exact. 1 MiB of AAC holds fewer frames than this.
 */
const maxCountedFrames = 16384;
/** A file this small is read whole so its frames can be counted (segments are tens of kilobytes). */
export const maxCountedAdtsBytes = 1024 * 1024;
/** Bytes searched for the first sync word (an ID3 tag may precede it: music-metadata skips those; we stop). */
const maxSyncSearch = 4096;

/** `countAll`: the bytes are the whole file and every frame is to be counted (packed audio). */
export function readAdts(head: Uint8Array, size: number, countAll = false): HeaderFacts | undefined {
  let start = 0;
  const limit = Math.min(head.length - 7, maxSyncSearch);
  while (start < limit && !(head[start] === 0xff && (head[start + 1]! & 0xf6) === 0xf0)) start++;
  if (start >= limit) return undefined;
  const rate = sampleRates[(head[start + 2]! >> 2) & 0x0f];
  const channels = ((head[start + 2]! & 1) << 2) | (head[start + 3]! >> 6);
  if (!rate) return undefined;
  let o = start;
  let frames = 0;
  const whole = countAll && head.length >= size;
  while (frames < (whole ? maxCountedFrames : maxFrames) && o + 7 <= head.length && head[o] === 0xff && (head[o + 1]! & 0xf6) === 0xf0) {
    const length = ((head[o + 3]! & 0x03) << 11) | (head[o + 4]! << 3) | (head[o + 5]! >> 5);
    if (length < 7 || o + length > head.length) break;
    o += length;
    frames++;
  }
  if (frames === 0) return undefined;
  // Every frame hopped to the file's end (a trailing tag may follow): counted, not estimated.
  if (whole && size - o < 7 + 1024) {
    const durationSeconds = (frames * 1024) / rate;
    return { video: 0, audio: 1, reader: "adts-frames", audioCodec: "aac", sampleRate: rate, channels: channels || undefined,
      audioBitrate: ((o - start) * 8) / durationSeconds, durationSeconds, durationFrom: "packets-counted" };
  }
  const meanFrame = (o - start) / frames;
  const durationSeconds = ((size - start) / meanFrame) * (1024 / rate);
  return { video: 0, audio: 1, reader: "adts-frames", audioCodec: "aac", sampleRate: rate, channels: channels || undefined,
    audioBitrate: ((size - start) * 8) / durationSeconds, durationSeconds, durationFrom: "bitrate-estimate" };
}

/** The owner of the ID3 PRIV frame HLS packed audio starts with (its 33-bit MPEG-TS timestamp follows). */
const packedAudioOwner = "com.apple.streaming.transportStreamTimestamp";
/** Bytes of the ID3 tag searched for that owner (the tag is a few dozen bytes; other frames may precede it). */
const maxId3SearchBytes = 1024;

/** An HLS packed-audio segment: an ID3v2 tag at the start holding the transport-stream timestamp PRIV frame. */
export function isPackedAudio(head: Uint8Array): boolean {
  if (head[0] !== 0x49 || head[1] !== 0x44 || head[2] !== 0x33) return false;
  const tagBytes = ((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7) | (head[9]! & 0x7f);
  const end = Math.min(head.length, 10 + tagBytes, maxId3SearchBytes);
  let text = "";
  for (let i = 10; i < end; i++) text += String.fromCharCode(head[i]!);
  return text.includes(`PRIV`) && text.includes(packedAudioOwner);
}
