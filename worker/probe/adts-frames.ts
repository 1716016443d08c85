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
/** Bytes searched for the first sync word (an ID3 tag may precede it: music-metadata skips those; we stop). */
const maxSyncSearch = 4096;

export function readAdts(head: Uint8Array, size: number): HeaderFacts | undefined {
  let start = 0;
  const limit = Math.min(head.length - 7, maxSyncSearch);
  while (start < limit && !(head[start] === 0xff && (head[start + 1]! & 0xf6) === 0xf0)) start++;
  if (start >= limit) return undefined;
  const rate = sampleRates[(head[start + 2]! >> 2) & 0x0f];
  const channels = ((head[start + 2]! & 1) << 2) | (head[start + 3]! >> 6);
  if (!rate) return undefined;
  let o = start;
  let frames = 0;
  while (frames < maxFrames && o + 7 <= head.length && head[o] === 0xff && (head[o + 1]! & 0xf6) === 0xf0) {
    const length = ((head[o + 3]! & 0x03) << 11) | (head[o + 4]! << 3) | (head[o + 5]! >> 5);
    if (length < 7 || o + length > head.length) break;
    o += length;
    frames++;
  }
  if (frames === 0) return undefined;
  const meanFrame = (o - start) / frames;
  const durationSeconds = ((size - start) / meanFrame) * (1024 / rate);
  return { video: 0, audio: 1, reader: "adts-frames", audioCodec: "aac", sampleRate: rate, channels: channels || undefined,
    audioBitrate: ((size - start) * 8) / durationSeconds, durationSeconds, durationFrom: "bitrate-estimate" };
}
