import { u16be } from "../bytes/read-bytes.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";

/** Stream counts and the first audio stream's WAVEFORMATEX, from an ASF header object (ASF spec 3.3, 9.1). */
export interface AsfStreams {
  video: number;
  audio: number;
  sampleRate?: number;
  channels?: number;
  bitsPerSample?: number;
}

const guid = (hex: string) => Uint8Array.from(hex.match(/../g)!.map((h) => parseInt(h, 16)));
// GUIDs as stored on disk (the first three fields little-endian).
const headerObject = guid("3026b2758e66cf11a6d900aa0062ce6c");
const streamProperties = guid("9107dcb7b7a9cf118ee600c00c205365");
const audioMedia = guid("409e69f84d5bcf11a8fd00805f5c442b");
const videoMedia = guid("c0ef19bc4d5bcf11a8fd00805f5c442b");

function equals(b: Uint8Array, o: number, g: Uint8Array): boolean {
  if (o + g.length > b.length) return false;
  for (let i = 0; i < g.length; i++) if (b[o + i] !== g[i]) return false;
  return true;
}

function u16le(b: Uint8Array, o: number): number | undefined {
  const v = u16be(b, o);
  return v === undefined ? undefined : ((v & 0xff) << 8) | (v >> 8);
}

function u32le(b: Uint8Array, o: number): number | undefined {
  const lo = u16le(b, o);
  const hi = u16le(b, o + 2);
  return lo === undefined || hi === undefined ? undefined : hi * 65536 + lo;
}

/** Reads the header object in the head bytes (it precedes the data object, so the first bytes hold it). */
export function readAsfStreams(head: Uint8Array): AsfStreams | undefined {
  if (!equals(head, 0, headerObject)) return undefined;
  const count = u32le(head, 24) ?? 0;
  const out: AsfStreams = { video: 0, audio: 0 };
  let o = 30;
  for (let i = 0; i < Math.min(count, 256) && o + 24 <= head.length; i++) {
    const size = (u32le(head, o + 16) ?? 0) + (u32le(head, o + 20) ?? 0) * 2 ** 32;
    if (size < 24) return undefined;
    if (equals(head, o, streamProperties)) {
      if (equals(head, o + 24, videoMedia)) out.video++;
      if (equals(head, o + 24, audioMedia)) {
        out.audio++;
        const wave = o + 78;
        if (out.audio === 1 && wave + 16 <= head.length) {
          out.channels = u16le(head, wave + 2);
          out.sampleRate = u32le(head, wave + 4);
          out.bitsPerSample = u16le(head, wave + 14);
        }
      }
    }
    o += size;
  }
  return out.audio + out.video > 0 ? out : undefined;
}

/** A header object larger than this (cover art, long metadata) is not read at the edge. */
const maxAsfHeaderBytes = 1024 * 1024;

/** Reads the whole header object through the byte source (its size is in its own first 24 bytes), then its streams. */
export async function readAsfHeader(source: RangeByteSource): Promise<AsfStreams | undefined> {
  const start = await source.read(0, 24);
  if (!equals(start, 0, headerObject)) return undefined;
  const size = (u32le(start, 16) ?? 0) + (u32le(start, 20) ?? 0) * 2 ** 32;
  if (size < 30 || size > maxAsfHeaderBytes) return undefined;
  return readAsfStreams(await source.read(0, size));
}
