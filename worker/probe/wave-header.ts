import { ascii, u32le } from "../bytes/read-bytes.ts";
import type { HeaderFacts } from "./header-facts.ts";
import { readRf64 } from "./rf64-header.ts";

/**
 * WAVE files whose `fmt ` tag is not plain PCM: ADPCM, G.711, IEEE float, MPEG audio, GSM, AC-3, FLAC and
 * WAVE_FORMAT_EXTENSIBLE (its subformat GUID's first two bytes are the tag). music-metadata names these for people
 * ("DVI_ADPCM", "non-PCM (65534)") and counts MP3-in-WAV by its `fact` chunk; this reader gives ffprobe's codec
 * names and ffmpeg's duration rules (libavformat/wavdec.c): codecs with an exact sample size from the data size,
 * MPEG audio from the byte rate, the rest from the `fact` sample count when there is one. Plain PCM is left to
 * music-metadata (which names extensible PCM "non-PCM"), RF64 to rf64-header.ts. Chunks are walked by their sizes within the head, a bounded count.
 */
const maxChunks = 32;

const pcmTag = 0x0001;
/** Not a WAVE tag: what an E-AC-3 subformat GUID stands for here. */
const eac3Tag = -1;

/** ffmpeg's codec per WAVE format tag (libavformat/riff.c), the ones files carry. */
const codecByTag: Readonly<Record<number, string>> = {
  0x0002: "adpcm_ms", 0x0006: "pcm_alaw", 0x0007: "pcm_mulaw", 0x000a: "wmavoice", 0x0011: "adpcm_ima_wav",
  0x0017: "adpcm_ima_oki", 0x0020: "adpcm_yamaha", 0x0022: "truespeech", 0x0031: "gsm_ms", 0x0032: "gsm_ms",
  0x0042: "g723_1", 0x0045: "adpcm_g726", 0x0050: "mp2", 0x0055: "mp3", 0x0061: "adpcm_ima_dk4", 0x0062: "adpcm_ima_dk3",
  0x0064: "adpcm_g726", 0x0069: "adpcm_ima_wav", 0x0092: "ac3", 0x00ff: "aac", 0x0160: "wmav1", 0x0161: "wmav2",
  0x0162: "wmapro", 0x0163: "wmalossless", 0x0200: "adpcm_ct", 0x0270: "atrac3", 0x1610: "aac", 0x2000: "ac3",
  0x2001: "dts", 0x566f: "vorbis", 0x706d: "aac", 0xa109: "speex", 0xf1ac: "flac",
};
/** The tail every WAVE_FORMAT_EXTENSIBLE subformat GUID built from a format tag shares (xxxxxxxx-0000-0010-8000-00aa00389b71). */
const baseGuidTail = [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71];
/** Subformat GUIDs of their own that ffmpeg knows (libavformat/riff.c ff_codec_wav_guids), as stored (little-endian fields). */
const guidCodecs: readonly { bytes: readonly number[]; tag: number }[] = [
  // Dolby Digital Plus (E-AC-3).
  { bytes: [0xaf, 0x87, 0xfb, 0xa7, 0x02, 0x2d, 0xfb, 0x42, 0xa4, 0xd4, 0x05, 0xcd, 0x93, 0x84, 0x3b, 0xdd], tag: eac3Tag },
];
const floatTag = 0x0003;
const extensibleTag = 0xfffe;
/** Tags whose duration ffmpeg takes from the byte rate whatever the `fact` chunk says. */
const byteRateTimed = new Set([0x0050, 0x0055]);

interface Fmt { tag: number; extensible: boolean; channels: number; rate: number; byteRate: number; bits: number }

/** ffprobe's name for a format tag and sample size; undefined for tags it has none for. */
export function waveCodecOf(tag: number, bits: number): string | undefined {
  if (tag === pcmTag) return bits === 8 ? "pcm_u8" : bits === 16 || bits === 24 || bits === 32 ? `pcm_s${bits}le` : undefined;
  if (tag === floatTag) return bits === 32 || bits === 64 ? `pcm_f${bits}le` : undefined;
  if (tag === eac3Tag) return "eac3";
  return codecByTag[tag];
}

/** The `fmt ` chunk body: WAVEFORMATEX, and for WAVE_FORMAT_EXTENSIBLE the subformat's tag. */
function readFmt(b: Uint8Array, o: number, size: number): Fmt | undefined {
  if (size < 16 || o + 16 > b.length) return undefined;
  const extensible = u16le(b, o) === extensibleTag && size >= 40 && o + 40 <= b.length;
  const tag = extensible ? subformatTag(b.subarray(o + 24, o + 40)) : u16le(b, o);
  return { tag, extensible, channels: u16le(b, o + 2), rate: u32le(b, o + 4) ?? 0, byteRate: u32le(b, o + 8) ?? 0, bits: u16le(b, o + 14) };
}

/** The format tag a subformat GUID stands for: its first field when it is built from one, else a known GUID's. */
function subformatTag(guid: Uint8Array): number {
  if (baseGuidTail.every((v, i) => guid[4 + i] === v)) return u16le(guid, 0);
  return guidCodecs.find((known) => known.bytes.every((v, i) => guid[i] === v))?.tag ?? 0;
}

/** Seconds of audio by ffmpeg's rules, or undefined when the header gives no way to tell. */
function durationOf(fmt: Fmt, codec: string, dataBytes: number, factSamples: number | undefined): number | undefined {
  // G.711 and linear PCM have an exact sample size: the data size decides, as for ffmpeg.
  if (/^pcm_/.test(codec) && fmt.bits > 0 && fmt.channels > 0) return (dataBytes * 8) / (fmt.channels * fmt.bits) / fmt.rate;
  if (factSamples && !byteRateTimed.has(fmt.tag)) {
    // Some writers count every channel's samples: ffmpeg divides when the data size agrees with that reading.
    const perChannel = fmt.channels > 1 && factSamples % fmt.channels === 0 && fmt.byteRate > 0
      && Math.abs((dataBytes * fmt.channels * fmt.rate) / factSamples / fmt.byteRate - 1) < 0.3;
    return (perChannel ? factSamples / fmt.channels : factSamples) / fmt.rate;
  }
  return fmt.byteRate > 0 ? dataBytes / fmt.byteRate : undefined;
}

/** Facts of a RIFF/WAVE head whose format is not plain PCM (RF64 through its own reader); `size` is the file's. */
export function readWave(head: Uint8Array, size: number): HeaderFacts | undefined {
  const magic = ascii(head, 0, 4);
  if (magic === "RF64" || magic === "BW64") return readRf64(head);
  if (magic !== "RIFF" || ascii(head, 8, 4) !== "WAVE") return undefined;
  let fmt: Fmt | undefined;
  let factSamples: number | undefined;
  let dataBytes: number | undefined;
  let o = 12;
  for (let i = 0; i < maxChunks && o + 8 <= head.length; i++) {
    const id = ascii(head, o, 4);
    const chunk = u32le(head, o + 4) ?? 0;
    if (id === "fmt ") fmt = readFmt(head, o + 8, chunk);
    if (id === "fact" && chunk >= 4) factSamples = u32le(head, o + 8);
    if (id === "data") {
      // A streaming writer leaves the size 0 (or too large): the data runs to the end of the file.
      const left = Math.max(0, size - (o + 8));
      dataBytes = chunk === 0 || chunk > left ? left : chunk;
      break;
    }
    o += 8 + chunk + (chunk & 1);
  }
  if (!fmt || (fmt.tag === pcmTag && !fmt.extensible) || !fmt.rate || dataBytes === undefined) return undefined;
  const codec = waveCodecOf(fmt.tag, fmt.bits);
  if (!codec) return undefined;
  const seconds = durationOf(fmt, codec, dataBytes, factSamples);
  return {
    video: 0, audio: 1, reader: "wave-fmt", sampleRate: fmt.rate, channels: fmt.channels || undefined, audioCodec: codec,
    bitDepth: /^pcm_/.test(codec) && fmt.bits > 0 ? fmt.bits : undefined,
    audioBitrate: fmt.byteRate > 0 ? fmt.byteRate * 8 : undefined,
    ...(seconds && Number.isFinite(seconds) ? { durationSeconds: seconds, durationFrom: "header" as const } : {}),
  };
}

function u16le(b: Uint8Array, o: number): number {
  return (b[o] ?? 0) | ((b[o + 1] ?? 0) << 8);
}
