import type { HeaderFacts } from "./header-facts.ts";

/**
 * Raw AC-3 and E-AC-3 (ATSC A/52): the first sync frame's header gives sample rate, channels and bitrate; the
 * duration is the size over that bitrate, as ffprobe estimates it for these constant-rate streams. Fixed-offset
 * reads of one header, nothing scanned past it.
 */
const ac3Rates = [48000, 44100, 32000] as const;
const eac3HalfRates = [24000, 22050, 16000] as const;
const ac3Kbps = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640] as const;
/** Full-bandwidth channels per audio coding mode (acmod). */
const acmodChannels = [2, 1, 2, 3, 3, 4, 4, 5] as const;
const eac3Blocks = [1, 2, 3, 6] as const;
/** Bytes searched for the first sync word (an ID3 tag or padding may precede it). */
const maxSyncSearch = 4096;

export function readAc3(head: Uint8Array, size: number): HeaderFacts | undefined {
  let o = 0;
  const limit = Math.min(head.length - 8, maxSyncSearch);
  while (o < limit && !(head[o] === 0x0b && head[o + 1] === 0x77)) o++;
  if (o >= limit) return undefined;
  const bsid = head[o + 5]! >> 3;
  if (bsid <= 10) {
    const fscod = head[o + 4]! >> 6;
    const frmsizecod = head[o + 4]! & 0x3f;
    const kbps = ac3Kbps[frmsizecod >> 1];
    if (fscod === 3 || kbps === undefined) return undefined;
    const acmod = head[o + 6]! >> 5;
    // lfeon follows acmod and the mix levels present for this acmod (A/52 5.3.2).
    const bit = 3 + ((acmod & 1) && acmod !== 1 ? 2 : 0) + (acmod & 4 ? 2 : 0) + (acmod === 2 ? 2 : 0);
    const lfe = (head[o + 6 + (bit >> 3)]! >> (7 - (bit & 7))) & 1;
    const bitrate = kbps * 1000;
    return { video: 0, audio: 1, reader: "ac3-sync", audioCodec: "ac3", sampleRate: ac3Rates[fscod], channels: acmodChannels[acmod]! + lfe,
      audioBitrate: bitrate, durationSeconds: ((size - o) * 8) / bitrate, durationFrom: "bitrate-estimate" };
  }
  if (bsid > 16) return undefined;
  // E-AC-3 (A/52 Annex E): frmsiz in 16-bit words, then fscod, fscod2 or numblkscod, acmod, lfeon.
  const frameBytes = ((((head[o + 2]! & 0x07) << 8) | head[o + 3]!) + 1) * 2;
  const fscod = head[o + 4]! >> 6;
  const sampleRate = fscod === 3 ? eac3HalfRates[(head[o + 4]! >> 4) & 3] : ac3Rates[fscod];
  const blocks = fscod === 3 ? 6 : eac3Blocks[(head[o + 4]! >> 4) & 3]!;
  const acmod = (head[o + 4]! >> 1) & 7;
  const lfe = head[o + 4]! & 1;
  if (!sampleRate) return undefined;
  const bitrate = (frameBytes * 8 * sampleRate) / (blocks * 256);
  return { video: 0, audio: 1, reader: "ac3-sync", audioCodec: "eac3", sampleRate, channels: acmodChannels[acmod]! + lfe,
    audioBitrate: bitrate, durationSeconds: ((size - o) * 8) / bitrate, durationFrom: "bitrate-estimate" };
}
