import { u32le } from "../bytes/read-bytes.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";

/**
 * Durations for files that do not declare one, from bounded reads. A Matroska/WebM from MediaRecorder has no
 * Duration and no Cues: the last cluster's timecode plus its last block's offset is the end. A VBR MP3 without
 * Xing/VBRI: the frames are counted (each header gives its length), within a byte budget.
 */

/** Bytes read from the end of a Matroska file to find the last cluster (a cluster of a recording is ~1-5 s). */
export const matroskaTailBytes = 512 * 1024;
const matroskaTailSteps = [64 * 1024, matroskaTailBytes];
/** An MP3 longer than this is not walked frame by frame at the edge (the runner's ffprobe does it). */
export const maxMp3WalkBytes = 8 * 1024 * 1024;

const clusterId = [0x1f, 0x43, 0xb6, 0x75];

/** EBML variable-size integer at o: value and length; `unknown` for the all-ones size (live streams). */
export function vint(b: Uint8Array, o: number, keepMarker = false): { value: number; length: number; unknown: boolean } | undefined {
  const first = b[o];
  if (first === undefined || first === 0) return undefined;
  let length = 1;
  while (!(first & (0x80 >> (length - 1)))) length++;
  if (length > 8 || o + length > b.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  let ones = value === (0xff >> length);
  for (let i = 1; i < length; i++) {
    value = value * 256 + b[o + i]!;
    ones &&= b[o + i] === 0xff;
  }
  return { value, length, unknown: !keepMarker && ones };
}

export function uint(b: Uint8Array, o: number, size: number): number {
  let v = 0;
  for (let i = 0; i < size && o + i < b.length; i++) v = v * 256 + b[o + i]!;
  return v;
}

/** End time (seconds) of the last block in the file's tail, or undefined if no cluster parses there. */
export async function matroskaDurationFromTail(source: RangeByteSource, timecodeScale: number): Promise<number | undefined> {
  const size = source.size;
  if (size === undefined) return undefined;
  // A short tail first (most last clusters fit); the longer one only fetches what the first did not hold.
  for (const bytes of matroskaTailSteps) {
    const from = Math.max(0, size - bytes);
    const tail = await source.read(from, size - from);
    // Clusters from the last backwards: a byte pattern inside frame data fails the Timecode check below.
    for (let o = tail.length - 4; o >= 0; o--) {
      if (tail[o] !== clusterId[0] || tail[o + 1] !== clusterId[1] || tail[o + 2] !== clusterId[2] || tail[o + 3] !== clusterId[3]) continue;
      const end = lastBlockEnd(tail, o);
      if (end !== undefined) return (end * timecodeScale) / 1e9;
    }
    if (from === 0) break;
  }
  return undefined;
}

/** Parses one cluster: its Timecode (must come first) and the largest block timecode after it. */
function lastBlockEnd(b: Uint8Array, clusterAt: number): number | undefined {
  const size = vint(b, clusterAt + 4);
  if (!size) return undefined;
  let o = clusterAt + 4 + size.length;
  const end = size.unknown ? b.length : Math.min(b.length, o + size.value);
  let clusterTime: number | undefined;
  let last: number | undefined;
  while (o < end) {
    const id = vint(b, o, true);
    if (!id) break;
    const len = vint(b, o + id.length);
    if (!len || len.unknown) break;
    const data = o + id.length + len.length;
    if (id.value === 0xe7) clusterTime = uint(b, data, len.value);
    else if (clusterTime === undefined) return undefined; // not a real cluster
    else if (id.value === 0xa3 && data + len.value <= b.length) last = Math.max(last ?? 0, clusterTime + blockOffset(b, data));
    else if (id.value === 0xa0) {
      // BlockGroup: Block (A1) and, when present, BlockDuration (9B).
      let g = data;
      let t: number | undefined;
      let d = 0;
      while (g < Math.min(data + len.value, b.length)) {
        const cid = vint(b, g, true);
        const clen = cid && vint(b, g + cid.length);
        if (!cid || !clen) break;
        const cdata = g + cid.length + clen.length;
        if (cid.value === 0xa1) t = clusterTime + blockOffset(b, cdata);
        if (cid.value === 0x9b) d = uint(b, cdata, clen.value);
        g = cdata + clen.value;
      }
      if (t !== undefined) last = Math.max(last ?? 0, t + d);
    } else if (id.value === 0x1f43b675) break; // the next cluster
    o = data + len.value;
  }
  return clusterTime === undefined ? undefined : (last ?? clusterTime);
}

/** A block's timecode relative to its cluster: signed 16-bit after the track number. */
function blockOffset(b: Uint8Array, o: number): number {
  const track = vint(b, o);
  const at = o + (track?.length ?? 1);
  const raw = ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
  return raw >= 0x8000 ? raw - 0x10000 : raw;
}

const mpegBitrates: Readonly<Record<string, readonly number[]>> = {
  // kbit/s by index, Layer III: MPEG-1, and MPEG-2/2.5
  v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const mpegRates: Readonly<Record<number, readonly number[]>> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** Bytes read at the first frame when an ID3v2 tag fills the head: enough for minCbrFrames frames at 320 kbit/s. */
const firstWindowBytes = 16 * 1024;

/** Frames of one bitrate in the head that make a file CBR for us. */
const minCbrFrames = 32;

/** An ID3v1 tag is the last 128 bytes; the head cannot see it, so assume one only when the file is whole in it. */
function id3v1Bytes(head: Uint8Array, size: number): number {
  return size <= head.length && head[size - 128] === 0x54 && head[size - 127] === 0x41 && head[size - 126] === 0x47 ? 128 : 0;
}

/** Counts Layer III frames from the first one; seconds = frames x samples per frame / sample rate. */
export async function mp3DurationByFrames(source: RangeByteSource, head: Uint8Array): Promise<number | undefined> {
  const size = source.size;
  if (size === undefined || size > maxMp3WalkBytes) return undefined;
  let o = 0;
  if (head[0] === 0x49 && head[1] === 0x44 && head[2] === 0x33) {
    // ID3v2: 10-byte header, syncsafe size
    o = 10 + (((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7) | (head[9]! & 0x7f));
  }
  const firstFrame = o;
  // A tag larger than the head (cover art): the first frames are read at its end, a small window only.
  let windowAt = 0;
  let window = head;
  if (firstFrame + 4 > head.length) {
    [windowAt, window] = [firstFrame, await source.read(firstFrame, Math.min(firstWindowBytes, size - firstFrame))];
  }
  const windowEnd = windowAt + window.length;
  const chunk = 256 * 1024;
  const bitrates = new Set<number>();
  let buffer: Uint8Array = new Uint8Array(0);
  let bufferAt = 0;
  let frames = 0;
  let samples = 0;
  let rate = 0;
  while (o + 4 <= size) {
    if (o + 4 > bufferAt + buffer.length) {
      // The first window (the head) first, without a request; past it, chunks through Range requests.
      [bufferAt, buffer] = o >= windowAt && o + 4 <= windowEnd ? [windowAt, window] : [o, await source.read(o, Math.min(chunk, size - o))];
    }
    const h = buffer.subarray(o - bufferAt, o - bufferAt + 4);
    if (h[0] !== 0xff || (h[1]! & 0xe0) !== 0xe0) break; // not a frame: a trailing tag or garbage
    const version = (h[1]! >> 3) & 3; // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5
    const layer = (h[1]! >> 1) & 3; // 1 = Layer III
    const bitrate = (version === 3 ? mpegBitrates.v1! : mpegBitrates.v2!)[h[2]! >> 4];
    const sr = mpegRates[version]?.[(h[2]! >> 2) & 3];
    if (layer !== 1 || !bitrate || !sr) break;
    const perFrame = version === 3 ? 1152 : 576;
    const length = Math.floor(((perFrame / 8) * bitrate * 1000) / sr) + ((h[2]! >> 1) & 1);
    frames++;
    samples += perFrame;
    rate = sr;
    o += length;
    bitrates.add(bitrate);
    // Constant bitrate through the head: the rest is more of the same, so bytes / rate is exact (ffprobe does
    // the same) and the file is not walked.
    if (o + 4 > windowEnd && o < size && bitrates.size === 1 && frames >= minCbrFrames) {
      return ((size - firstFrame - id3v1Bytes(head, size)) * 8) / (bitrate * 1000);
    }
  }
  return frames > 0 && rate > 0 ? samples / rate : undefined;
}

/** Bytes read from the end of an Ogg file for its last page (audio pages are a few KiB; the largest 64 KiB). */
const oggTailBytes = [8 * 1024, 64 * 1024];

/**
 * An Ogg stream's duration from its last page's granule position (samples at `sampleRate`, less the Opus
 * pre-skip; a video stream's frames by `granuleSeconds`), read from the file's end: what ffprobe does, without
 * walking the pages between.
 */
export async function oggDurationFromTail(source: RangeByteSource, stream: { serial: number; sampleRate: number; preSkip?: number },
  granuleSeconds?: (high: number, low: number) => number | undefined): Promise<number | undefined> {
  const size = source.size;
  if (size === undefined) return undefined;
  const preSkip = stream.preSkip ?? 0;
  for (const bytes of oggTailBytes) {
    const from = Math.max(0, size - bytes);
    const tail = await source.read(from, size - from);
    for (let o = tail.length - 27; o >= 0; o--) {
      if (!isOggPage(tail, o) || u32le(tail, o + 14) !== stream.serial) continue;
      const low = u32le(tail, o + 6) ?? 0;
      const high = u32le(tail, o + 10) ?? 0;
      if (high === 0xffffffff && low === 0xffffffff) continue; // no packet ends on this page
      if (granuleSeconds) return granuleSeconds(high, low);
      const granule = high * 2 ** 32 + low;
      if (granule > preSkip) return (granule - preSkip) / stream.sampleRate;
    }
    if (from === 0) break;
  }
  return undefined;
}

function isOggPage(b: Uint8Array, o: number): boolean {
  return b[o] === 0x4f && b[o + 1] === 0x67 && b[o + 2] === 0x67 && b[o + 3] === 0x53 && b[o + 4] === 0;
}
