/**
 * Audio and video stream counts of an MPEG program stream from its first packs (ISO 11172-1 / 13818-1 2.5):
 * the system header's stream list where there is one, and the stream ids of the PES packets in the head.
 * The walk steps over each pack header and each packet by its own length field: linear, never a byte search.
 */
import type { MpegStreams } from "./mpegts-streams.ts";

const isVideoId = (id: number) => id >= 0xe0 && id <= 0xef;
const isAudioId = (id: number) => id >= 0xc0 && id <= 0xdf;
/** private_stream_1 (0xBD): DVD sub-stream ids 0x80-0x8F (AC-3, DTS) and 0xA0-0xAF (LPCM) are audio, 0x20-0x3F subtitles. */
const isPrivateAudio = (sub: number) => (sub >= 0x80 && sub <= 0x8f) || (sub >= 0xa0 && sub <= 0xaf);

const startCode = (b: Uint8Array, o: number) => b[o] === 0 && b[o + 1] === 0 && b[o + 2] === 1;

/** The first payload byte of an MPEG-2 PES packet (after its optional header), or undefined for MPEG-1 packets. */
function mpeg2PayloadByte(b: Uint8Array, o: number): number | undefined {
  if ((b[o + 6]! & 0xc0) !== 0x80) return undefined;
  return b[o + 9 + b[o + 8]!];
}

export function readMpegPsStreams(b: Uint8Array): MpegStreams | undefined {
  if (!(startCode(b, 0) && b[3] === 0xba)) return undefined;
  const video = new Set<number>();
  const audio = new Set<number>();
  for (let o = 0; o + 6 <= b.length;) {
    if (!startCode(b, o)) break;
    const id = b[o + 3]!;
    if (id === 0xb9) break; // program end
    if (id === 0xba) {
      const mpeg2 = (b[o + 4]! & 0xc0) === 0x40;
      o += mpeg2 ? 14 + (b[o + 13]! & 0x07) : 12;
      continue;
    }
    if (id < 0xbb) break;
    const length = (b[o + 4]! << 8) | b[o + 5]!;
    if (id === 0xbb) {
      // System header: 6 fixed bytes after the length, then 3 bytes per stream while the first bit is set.
      for (let e = o + 12; e + 3 <= Math.min(o + 6 + length, b.length) && b[e]! & 0x80; e += 3) {
        const sid = b[e]!;
        if (isVideoId(sid) || sid === 0xb9) video.add(sid);
        if (isAudioId(sid) || sid === 0xb8) audio.add(sid);
      }
    } else if (isVideoId(id)) video.add(id);
    else if (isAudioId(id)) audio.add(id);
    else if (id === 0xbd) {
      const sub = mpeg2PayloadByte(b, o);
      if (sub !== undefined && isPrivateAudio(sub)) audio.add(0x100 + sub);
    }
    o += 6 + length;
  }
  return video.size + audio.size > 0 ? { video: video.size, audio: audio.size } : undefined;
}
