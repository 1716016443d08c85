/**
 * Tracks of an MPEG transport stream from the PMT in its first packets (ISO 13818-1 2.4.4, ETSI EN 300 468):
 * codec by stream_type and descriptors, language and audio type from the ISO 639 language descriptor, DVB
 * subtitles (subtitling_descriptor, hard-of-hearing types as captions) and teletext, and CEA-608/708 captions in
 * the first video access units of the head. The program tables come from mpegts-psi.ts; linear in the head.
 */
import { readProgramStreams } from "./mpegts-psi.ts";
import { ceaCaptions } from "./cea-captions.ts";
import { bcp47Language } from "../../shared/media/languages.ts";
import { maxListedTracks, type MediaTracks, type TextTrack, type TrackFacts } from "../../shared/shapes/tracks.ts";

/** stream_type -> ffprobe's codec name. */
const videoCodecs: Readonly<Record<number, string>> = { 0x01: "mpeg1video", 0x02: "mpeg2video", 0x10: "mpeg4", 0x1b: "h264", 0x24: "hevc", 0x33: "vvc", 0xea: "vc1", 0x42: "cavs", 0xd1: "dirac" };
const audioCodecs: Readonly<Record<number, string>> = { 0x03: "mp2", 0x04: "mp3", 0x0f: "aac", 0x11: "aac_latm", 0x1c: "aac", 0x81: "ac3", 0x87: "eac3", 0x82: "dts", 0x85: "dts", 0x86: "dts", 0x83: "truehd", 0x84: "eac3", 0xa1: "eac3", 0xa2: "dts" };
/** Private-data (0x06) descriptors: AC-3, E-AC-3, DTS, AAC, AC-4. */
const audioDescriptors: Readonly<Record<number, string>> = { 0x6a: "ac3", 0x7a: "eac3", 0x7b: "dts", 0x7c: "aac" };

interface Descriptor { tag: number; body: Uint8Array }

function* descriptors(b: Uint8Array): Generator<Descriptor> {
  for (let o = 0; o + 2 <= b.length;) {
    const length = b[o + 1]!;
    yield { tag: b[o]!, body: b.subarray(o + 2, Math.min(b.length, o + 2 + length)) };
    o += 2 + length;
  }
}

const lang = (b: Uint8Array, o: number) => bcp47Language(String.fromCharCode(b[o] ?? 0, b[o + 1] ?? 0, b[o + 2] ?? 0));

/** Tracks of the transport stream in `head`; undefined when its PMTs are not all there. */
export function readMpegTsTracks(head: Uint8Array): TrackFacts | undefined {
  const streams = readProgramStreams(head);
  if (!streams) return undefined;
  const tracks: MediaTracks = { video: [], audio: [], text: [] };
  let truncated = false;
  const push = <K extends "video" | "audio" | "text">(kind: K, track: MediaTracks[K][number]) => {
    if (tracks[kind].length >= maxListedTracks) { truncated = true; return; }
    (tracks[kind] as MediaTracks[K][number][]).push(track);
  };
  for (const { type, info } of streams) {
    let language: string | undefined;
    let audioType = 0;
    let codec = videoCodecs[type] ?? audioCodecs[type];
    let text: TextTrack | undefined;
    for (const d of descriptors(info)) {
      if (d.tag === 0x0a && d.body.length >= 4) { language = lang(d.body, 0); audioType = d.body[3]!; }
      if (type === 0x06 && audioDescriptors[d.tag]) codec = audioDescriptors[d.tag];
      if (type === 0x06 && d.tag === 0x59 && d.body.length >= 8) {
        // subtitling_type 0x20-0x25: hard of hearing (captions); 0x10-0x15 normal subtitles.
        const subtitling = d.body[3]!;
        const l = lang(d.body, 0);
        text = { kind: subtitling >= 0x20 && subtitling <= 0x25 ? "captions" : "subtitles", format: "dvb-subtitle", ...(l ? { language: l } : {}) };
      }
      if (type === 0x06 && d.tag === 0x56 && d.body.length >= 5) {
        // teletext_type 0x02 subtitle page, 0x05 subtitle page for the hard of hearing.
        const teletext = d.body[3]! >> 3;
        const l = lang(d.body, 0);
        text = { kind: teletext === 0x05 ? "captions" : "subtitles", format: "dvb-teletext", ...(l ? { language: l } : {}) };
      }
    }
    if (text) push("text", text);
    else if (videoCodecs[type] || (type === 0x06 && codec && !audioCodecs[type] && Object.values(videoCodecs).includes(codec))) push("video", { codec: codec!, ...(language ? { language } : {}) });
    else if (codec) {
      // ISO 639 audio_type 0x03: visual impaired commentary (audio description).
      push("audio", { codec, ...(language ? { language } : {}), ...(audioType === 0x03 ? { role: "description" as const } : {}) });
    }
  }
  for (const format of tracks.video.length > 0 ? ceaCaptions(head) : []) push("text", { kind: "captions", format });
  return { tracks: truncated ? { ...tracks, truncated } : tracks };
}
