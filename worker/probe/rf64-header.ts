import { ascii, u32le } from "../bytes/read-bytes.ts";
import type { HeaderFacts } from "./header-facts.ts";

/**
 * RF64 / BW64 WAV (EBU Tech 3306): the RIFF size fields are 0xFFFFFFFF and the real sizes sit in the `ds64`
 * chunk that must come first; `fmt ` follows. Data size over the byte rate is the duration (exact for PCM).
 * Chunks are walked by their sizes in the head only, a bounded count.
 */
const maxChunks = 16;

export function readRf64(head: Uint8Array): HeaderFacts | undefined {
  const magic = ascii(head, 0, 4);
  if ((magic !== "RF64" && magic !== "BW64") || ascii(head, 8, 4) !== "WAVE") return undefined;
  let o = 12;
  let dataBytes: number | undefined;
  let fmt: { tag: number; channels: number; rate: number; byteRate: number; bits: number } | undefined;
  for (let i = 0; i < maxChunks && o + 8 <= head.length && !(dataBytes !== undefined && fmt); i++) {
    const id = ascii(head, o, 4);
    const size = u32le(head, o + 4) ?? 0;
    if (id === "ds64" && o + 8 + 24 <= head.length) dataBytes = u64le(head, o + 16);
    if (id === "fmt " && o + 8 + 16 <= head.length) {
      fmt = { tag: u16le(head, o + 8), channels: u16le(head, o + 10), rate: u32le(head, o + 12) ?? 0, byteRate: u32le(head, o + 16) ?? 0, bits: u16le(head, o + 22) };
    }
    if (id === "data") break;
    o += 8 + size + (size & 1);
  }
  if (!fmt || !fmt.rate) return undefined;
  const pcm = fmt.tag === 1 || fmt.tag === 0xfffe;
  return {
    video: 0, audio: 1, reader: "rf64-ds64", sampleRate: fmt.rate, channels: fmt.channels || undefined, bitDepth: pcm ? fmt.bits : undefined,
    audioCodec: pcm ? `pcm_${fmt.bits === 8 ? "u8" : `s${fmt.bits}le`}` : fmt.tag === 3 ? `pcm_f${fmt.bits}le` : undefined,
    audioBitrate: fmt.byteRate * 8,
    ...(dataBytes && fmt.byteRate ? { durationSeconds: dataBytes / fmt.byteRate, durationFrom: "header" as const } : {}),
  };
}

function u16le(b: Uint8Array, o: number): number {
  return (b[o] ?? 0) | ((b[o + 1] ?? 0) << 8);
}

function u64le(b: Uint8Array, o: number): number {
  return (u32le(b, o) ?? 0) + (u32le(b, o + 4) ?? 0) * 2 ** 32;
}
