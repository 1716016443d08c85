import { ascii, u16be, u32be } from "../bytes/read-bytes.ts";
import type { HeaderFacts } from "./header-facts.ts";

/**
 * FLV: the header's flags say which streams exist; the first script tag's `onMetaData` (AMF0, an ECMA array)
 * states duration, size, frame rate, codec ids, sample rate and stereo. Only the array's top-level scalar
 * entries are read: the first nested object or array (the keyframe index) ends the walk, so depth is 1 and the
 * walk is linear in the bytes held.
 */
const maxEntries = 64;
const videoCodecs: Readonly<Record<number, string>> = { 2: "flv1", 3: "flashsv", 4: "vp6f", 5: "vp6a", 6: "flashsv2", 7: "h264", 12: "hevc" };
const audioCodecs: Readonly<Record<number, string>> = { 1: "adpcm_swf", 2: "mp3", 4: "nellymoser", 5: "nellymoser", 6: "nellymoser", 10: "aac", 11: "speex" };

export function readFlv(head: Uint8Array): HeaderFacts | undefined {
  if (ascii(head, 0, 3) !== "FLV") return undefined;
  const flags = head[4] ?? 0;
  const facts: HeaderFacts = { video: flags & 1 ? 1 : 0, audio: flags & 4 ? 1 : 0, reader: "flv-onmetadata" };
  const tag = (u32be(head, 5) ?? 9) + 4; // header, then PreviousTagSize0
  if (head[tag] !== 18) return facts;
  const end = Math.min(head.length, tag + 11 + (((head[tag + 1] ?? 0) << 16) | (u16be(head, tag + 2) ?? 0)));
  let o = tag + 11;
  if (head[o] !== 2 || ascii(head, o + 3, 10) !== "onMetaData") return facts;
  o += 13;
  if (head[o] === 8) o += 5; // ECMA array: type and approximate count
  else if (head[o] === 3) o += 1; // an anonymous object
  else return facts;
  const meta: Record<string, number | boolean> = {};
  for (let i = 0; i < maxEntries && o + 3 <= end; i++) {
    const keyLength = u16be(head, o) ?? 0;
    if (keyLength === 0) break; // the object end marker (00 00 09)
    const key = ascii(head, o + 2, keyLength);
    o += 2 + keyLength;
    const type = head[o];
    if (type === 0 && o + 9 <= end) { meta[key] = new DataView(head.buffer, head.byteOffset + o + 1, 8).getFloat64(0); o += 9; }
    else if (type === 1) { meta[key] = head[o + 1] === 1; o += 2; }
    else if (type === 2) o += 3 + (u16be(head, o + 1) ?? 0);
    else break; // objects, arrays, dates: the facts we read come before them
  }
  const num = (k: string) => (typeof meta[k] === "number" && Number.isFinite(meta[k]) && (meta[k] as number) > 0 ? meta[k] as number : undefined);
  const duration = num("duration");
  if (duration) { facts.durationSeconds = duration; facts.durationFrom = "header"; }
  if (facts.video) {
    facts.width = num("width");
    facts.height = num("height");
    facts.fps = num("framerate");
    const id = num("videocodecid");
    if (id !== undefined) facts.videoCodec = videoCodecs[id];
  }
  if (facts.audio) {
    facts.sampleRate = num("audiosamplerate");
    if (typeof meta.stereo === "boolean") facts.channels = meta.stereo ? 2 : 1;
    const id = num("audiocodecid");
    if (id !== undefined) facts.audioCodec = audioCodecs[id];
    const kbps = num("audiodatarate");
    if (kbps) facts.audioBitrate = kbps * 1000;
  }
  return facts;
}
