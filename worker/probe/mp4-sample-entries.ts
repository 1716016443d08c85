/** The sample entries of an MP4/MOV track (ISO/IEC 14496-12 8.5.2, QuickTime sound descriptions): codec, size, rate, config. */
import { ascii, u16be, u32be } from "../bytes/read-bytes.ts";
import { mp4Boxes, mp4Child, type Mp4Box as Box } from "../../shared/media/mp4-box-reader.ts";
import { reduced } from "./ratio.ts";
import { aacConfig, av1Config, avcConfig, hevcConfig, vpcConfig } from "../../shared/media/codec-config.ts";
import type { CodecConfig, ColourDescription } from "../../shared/media/codec-string.ts";
import { originalFormat } from "./mp4-tracks.ts";
import type { Mp4Track } from "./mp4-track.ts";
import { mpeg4VisualConfig } from "./mpeg4-visual.ts";
import { esdsAudioTypes } from "./mp4-object-types.ts";

/** ffprobe's names for the sample-entry codes. */
export const codecNames: Readonly<Record<string, string>> = {
  avc1: "h264", avc3: "h264", hvc1: "hevc", hev1: "hevc", av01: "av1", vp09: "vp9", vp08: "vp8", mp4v: "mpeg4",
  "mp4a": "aac", Opus: "opus", fLaC: "flac", alac: "alac", "ac-3": "ac3", "ec-3": "eac3", ".mp3": "mp3",
  jpeg: "mjpeg", mjpa: "mjpeg", apcn: "prores", apch: "prores", apcs: "prores", apco: "prores", ap4h: "prores",
};

/** H.264 profile_idc to ffprobe's profile names. */
const avcProfiles: Readonly<Record<number, string>> = {
  66: "Baseline", 77: "Main", 88: "Extended", 100: "High", 110: "High 10", 122: "High 4:2:2", 244: "High 4:4:4 Predictive",
};
const hevcProfiles: Readonly<Record<number, string>> = { 1: "Main", 2: "Main 10", 3: "Main Still Picture", 4: "Rext" };

/** VisualSampleEntry: 8 bytes of SampleEntry, 70 of visual fields (width, height at 24/26), then boxes. */
export function readVisualEntry(b: Uint8Array, entry: Box, track: Mp4Track): void {
  const width = u16be(b, entry.start + 24);
  const height = u16be(b, entry.start + 26);
  if (width && height) { track.width = width; track.height = height; track.codedWidth = width; track.codedHeight = height; }
  let colour: ColourDescription | undefined;
  let av1: Uint8Array | undefined;
  for (const box of mp4Boxes(b, entry, entry.start + 78)) {
    const body = b.subarray(box.start, box.end);
    if (box.type === "avcC") {
      const idc = b[box.start + 1] ?? 0;
      const constrained = idc === 66 && ((b[box.start + 2] ?? 0) & 0x40) !== 0;
      const name = constrained ? "Constrained Baseline" : avcProfiles[idc];
      if (name) track.profile = name;
      // These profiles are 8-bit 4:2:0 by definition; higher ones declare chroma and depth elsewhere.
      if (idc === 66 || idc === 77 || idc === 88 || idc === 100) track.pixelFormat = "yuv420p";
      track.codecConfig = avcConfig(body, entry.type === "avc3" ? "avc3" : "avc1");
    }
    if (box.type === "hvcC") {
      const idc = (b[box.start + 1] ?? 0) & 0x1f;
      if (hevcProfiles[idc]) track.profile = hevcProfiles[idc];
      if (idc === 1) track.pixelFormat = "yuv420p";
      if (idc === 2) track.pixelFormat = "yuv420p10le";
      track.codecConfig = hevcConfig(body, entry.type === "hev1" ? "hev1" : "hvc1");
    }
    // vpcC is a full box: version and flags come first.
    if (box.type === "vpcC") track.codecConfig = vpcConfig(body.subarray(4));
    if (box.type === "av1C") av1 = body;
    if (box.type === "esds" && entry.type === "mp4v") track.codecConfig = mpeg4VisualConfig(body);
    if (box.type === "pasp") {
      const num = u32be(b, box.start) ?? 0;
      const den = u32be(b, box.start + 4) ?? 0;
      if (num > 0 && den > 0 && num !== den) track.sampleAspectRatio = reduced(num, den);
    }
    if (box.type === "colr" && ascii(b, box.start, 4) === "nclx") {
      const transfer = u16be(b, box.start + 6) ?? 2;
      track.hdr = transfer === 16 ? "pq" : transfer === 18 ? "hlg" : "sdr";
      colour = {
        primaries: u16be(b, box.start + 4) ?? 2, transfer, matrix: u16be(b, box.start + 8) ?? 2,
        fullRange: ((b[box.start + 10] ?? 0) & 0x80) !== 0,
      };
    }
  }
  // av1C has no colour of its own: the codecs string takes it from colr, which may come after it.
  if (av1) track.codecConfig = av1Config(av1, colour);
  if (!track.codecConfig && entry.type === "vp08") track.codecConfig = { codec: "vp8" };
}

/** AudioSampleEntry (version 0): channel count at 16, sample rate (16.16) at 24. */
export function readAudioEntry(b: Uint8Array, entry: Box, track: Mp4Track): void {
  const channels = u16be(b, entry.start + 16);
  const sampleSize = u16be(b, entry.start + 18);
  const rate = u16be(b, entry.start + 24);
  if (channels) track.channels = channels;
  if (sampleSize) track.bitDepth = sampleSize;
  // Opus in MP4 always decodes at 48 kHz whatever the entry says.
  if (track.codec === "opus") track.sampleRate = 48000;
  else if (rate) track.sampleRate = rate;
  // QuickTime sound entries v1/v2 have 16/36 more bytes before their boxes.
  const version = u16be(b, entry.start + 8) ?? 0;
  if (version === 2) readSoundDescriptionV2(b, entry, track);
  const childrenAt = entry.start + 28 + (version === 1 ? 16 : version === 2 ? 36 : 0);
  for (const box of mp4Boxes(b, entry, childrenAt)) {
    // QuickTime keeps the esds inside a `wave` box (after frma and a copy of the entry's code).
    const esdsBox = box.type === "wave" ? mp4Child(b, box, "esds") : box.type === "esds" ? box : undefined;
    // muxers write 2 in the entry's channel count whatever the stream; AAC's own config has the real number.
    if (esdsBox) {
      const esds = readEsds(b, esdsBox.start + 4, esdsBox.end);
      if (esds?.channels) track.channels = esds.channels;
      // USAC (xHE-AAC) states its output rate in its own config; the entry's field is often 0 or a placeholder.
      if (esds?.usacSampleRate) track.sampleRate = esds.usacSampleRate;
      track.codecConfig = esds?.config;
      if (esds?.codecName) track.codec = esds.codecName;
    }
  }
  track.codecConfig ??= audioEntryConfigs[originalFormat(b, entry, "soun") ?? entry.type];
}

/**
 * QuickTime SoundDescriptionV2 (rates above 65535 Hz, and what Apple's encoders write for xHE-AAC): the common
 * fields hold placeholders (3 channels, 1 Hz); the rate is a float64 and the channel count a u32 after them.
 */
function readSoundDescriptionV2(b: Uint8Array, entry: Box, track: Mp4Track): void {
  if (entry.start + 44 > entry.end) return;
  const rate = new DataView(b.buffer, b.byteOffset + entry.start + 32, 8).getFloat64(0);
  const channels = u32be(b, entry.start + 40);
  if (Number.isFinite(rate) && rate >= 1000 && rate <= 768000) track.sampleRate = Math.round(rate);
  if (channels && channels <= 64) track.channels = channels;
}

/** Sample entries whose code alone is the codecs entry. */
const audioEntryConfigs: Readonly<Record<string, CodecConfig>> = {
  Opus: { codec: "opus" }, fLaC: { codec: "flac" }, "ac-3": { codec: "ac3" }, "ec-3": { codec: "eac3" }, ".mp3": { codec: "mp3-in-mp4" },
  alac: { codec: "alac" }, spex: { codec: "speex" },
};
/** MPEG-4 objectTypeIndication of MPEG-4 Audio (AAC); the other audio values are in mp4-object-types.ts. */
const mpeg4Audio = 0x40;

/**
 * Descriptor (tag, size in up to 4 bytes of 7 bits) walk of an esds box: the object type, and from
 * AudioSpecificConfig the AAC object type and channels.
 */
function readEsds(b: Uint8Array, start: number, end: number): { channels?: number; config?: CodecConfig; usacSampleRate?: number; codecName?: string } | undefined {
  let o = start;
  const descriptor = (): { tag: number; data: number } | undefined => {
    const tag = b[o];
    let length = 0;
    let i = 1;
    for (; i <= 4; i++) {
      const c = b[o + i];
      if (c === undefined) return undefined;
      length = (length << 7) | (c & 0x7f);
      if (!(c & 0x80)) break;
    }
    return tag === undefined ? undefined : { tag, data: o + i + 1 };
  };
  const es = descriptor();
  if (es?.tag !== 0x03) return undefined;
  const flags = b[es.data + 2] ?? 0;
  o = es.data + 3 + (flags & 0x80 ? 2 : 0) + (flags & 0x40 ? 1 + (b[es.data + 3] ?? 0) : 0) + (flags & 0x20 ? 2 : 0);
  const config = descriptor();
  if (config?.tag !== 0x04) return undefined;
  const objectType = b[config.data];
  const other = objectType === undefined ? undefined : esdsAudioTypes[objectType];
  if (other) return { config: other.config, codecName: other.name };
  // Another codec (MPEG-2 AAC, DTS, ...): its DecoderSpecificInfo is no AudioSpecificConfig.
  if (objectType !== mpeg4Audio) return {};
  o = config.data + 13;
  const specific = descriptor();
  if (specific?.tag !== 0x05 || specific.data + 2 > end) return undefined;
  const aac = objectType === mpeg4Audio ? aacConfig(b.subarray(specific.data, Math.min(end, specific.data + 2))) : undefined;
  // AudioSpecificConfig: object type (5 bits), frequency index (4; 15 = 24 explicit bits), channel config (4).
  const read = (from: number, count: number) => {
    let v = 0;
    for (let n = from; n < from + count; n++) v = (v << 1) | (((b[specific.data + (n >> 3)] ?? 0) >> (7 - (n & 7))) & 1);
    return v;
  };
  // An object type of 31 escapes to 32 + the next 6 bits (USAC, xHE-AAC, is 42).
  const escaped = read(0, 5) === 31;
  const objectTypeBits = escaped ? 11 : 5;
  const frequencyIndex = read(objectTypeBits, 4);
  const explicit = frequencyIndex === 15;
  const count = read(objectTypeBits + 4 + (explicit ? 24 : 0), 4);
  // Configurations 1-6 are that many channels, 7 is 7.1 (8 channels); 0 means "in the stream".
  const channels = count >= 1 && count <= 6 ? count : count === 7 ? 8 : undefined;
  const usac = escaped && 32 + read(5, 6) === 42;
  const frequency = explicit ? read(objectTypeBits + 4, 24) : ascSampleRates[frequencyIndex];
  return { ...(channels ? { channels } : {}), ...(aac ? { config: aac } : {}), ...(usac && frequency ? { usacSampleRate: frequency } : {}) };
}

/** AudioSpecificConfig sampling frequency indexes (ISO 14496-3 1.6.3.3); 15 is an explicit 24-bit rate. */
const ascSampleRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350] as const;
