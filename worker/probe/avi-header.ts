import { ascii, u32le } from "../bytes/read-bytes.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";
import type { HeaderFacts } from "./header-facts.ts";

/**
 * AVI (RIFF 'AVI '): the `hdrl` list at the start holds `avih` and one `strl` per stream, each with a stream
 * header (`strh`: type, scale, rate, length) and a format (`strf`: BITMAPINFOHEADER or WAVEFORMATEX). The list
 * is read once (a size cap), its chunks walked by their sizes (a count cap), two levels deep at most.
 */
const maxHdrlBytes = 64 * 1024;
const maxChunks = 64;
const videoFourccs: Readonly<Record<string, string>> = {
  FMP4: "mpeg4", XVID: "mpeg4", DIVX: "mpeg4", DX50: "mpeg4", MP4V: "mpeg4", H264: "h264", AVC1: "h264", X264: "h264",
  MJPG: "mjpeg", HEVC: "hevc", H265: "hevc", VP80: "vp8", VP90: "vp9", AV01: "av1", MPG2: "mpeg2video", DIV3: "msmpeg4v3",
};
const audioTags: Readonly<Record<number, string>> = { 0x50: "mp2", 0x55: "mp3", 0xff: "aac", 0x2000: "ac3", 0x2001: "dts", 0x161: "wmav2" };

export async function readAvi(source: RangeByteSource, head: Uint8Array): Promise<HeaderFacts | undefined> {
  if (ascii(head, 0, 4) !== "RIFF" || ascii(head, 8, 4) !== "AVI " || ascii(head, 12, 4) !== "LIST" || ascii(head, 20, 4) !== "hdrl") return undefined;
  const size = u32le(head, 16) ?? 0;
  if (size < 4 || size > maxHdrlBytes) return undefined;
  const hdrl = await source.read(24, size - 4);
  const facts: HeaderFacts = { video: 0, audio: 0, reader: "avi-hdrl" };
  let chunks = 0;
  for (let o = 0; o + 8 <= hdrl.length && chunks < maxChunks; chunks++) {
    const id = ascii(hdrl, o, 4);
    const length = u32le(hdrl, o + 4) ?? 0;
    if (id === "LIST" && ascii(hdrl, o + 8, 4) === "strl") readStream(hdrl.subarray(o + 12, Math.min(hdrl.length, o + 8 + length)), facts);
    o += 8 + length + (length & 1);
  }
  return facts.video + facts.audio > 0 ? facts : undefined;
}

function readStream(b: Uint8Array, facts: HeaderFacts): void {
  let kind = "";
  let scale = 0;
  let rate = 0;
  let length = 0;
  for (let o = 0, i = 0; o + 8 <= b.length && i < maxChunks; i++) {
    const id = ascii(b, o, 4);
    const size = u32le(b, o + 4) ?? 0;
    const body = o + 8;
    if (id === "strh" && size >= 36) {
      kind = ascii(b, body, 4);
      scale = u32le(b, body + 20) ?? 0;
      rate = u32le(b, body + 24) ?? 0;
      length = u32le(b, body + 32) ?? 0;
    }
    if (id === "strf" && kind === "vids" && facts.video === 0 && size >= 20) {
      facts.video = 1;
      facts.width = u32le(b, body + 4);
      facts.height = Math.abs((u32le(b, body + 8) ?? 0) | 0); // negative: a top-down bitmap
      facts.videoCodec = videoFourccs[ascii(b, body + 16, 4).toUpperCase()];
      if (scale > 0 && rate > 0) {
        facts.fps = rate / scale;
        if (length > 0) { facts.durationSeconds = (length * scale) / rate; facts.durationFrom = "header"; }
      }
    }
    if (id === "strf" && kind === "auds" && size >= 16) {
      facts.audio++;
      if (facts.audio === 1) {
        const tag = (b[body] ?? 0) | ((b[body + 1] ?? 0) << 8);
        facts.channels = (b[body + 2] ?? 0) | ((b[body + 3] ?? 0) << 8);
        facts.sampleRate = u32le(b, body + 4);
        facts.audioBitrate = (u32le(b, body + 8) ?? 0) * 8 || undefined;
        const bits = (b[body + 14] ?? 0) | ((b[body + 15] ?? 0) << 8);
        facts.audioCodec = tag === 1 ? `pcm_${bits === 8 ? "u8" : `s${bits}le`}` : audioTags[tag];
        // An audio-only AVI: the audio stream's length in blocks over its rate.
        if (facts.video === 0 && scale > 0 && rate > 0 && length > 0) { facts.durationSeconds = (length * scale) / rate; facts.durationFrom = "header"; }
      }
    }
    o = body + size + (size & 1);
  }
}
