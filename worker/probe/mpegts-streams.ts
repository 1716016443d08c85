/**
 * Audio and video stream counts of an MPEG transport stream, by stream_type and descriptors of the streams its
 * program tables list (mpegts-psi.ts).
 */
import { readProgramStreams } from "./mpegts-psi.ts";

export interface MpegStreams {
  video: number;
  audio: number;
}

/** One elementary stream a PMT lists: its PID, stream_type, and the kind it carries. */
export interface TsElementaryStream { pid: number; type: number; kind: "audio" | "video" }

const videoTypes = new Set([0x01, 0x02, 0x10, 0x1b, 0x1e, 0x1f, 0x20, 0x24, 0x25, 0x33, 0x42, 0xd1, 0xea]);
const audioTypes = new Set([0x03, 0x04, 0x0f, 0x11, 0x1c, 0x2d, 0x2e, 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0xa1, 0xa2]);
/** DVB descriptors of audio carried as private data (stream_type 0x06): AC-3, E-AC-3, DTS, AAC, DTS-HD, AC-4. */
const audioDescriptorTags = new Set([0x6a, 0x7a, 0x7b, 0x7c]);
/** Registration descriptor (tag 0x05) format identifiers of private-data streams. */
const audioFormatIds = new Set(["AC-3", "EAC3", "DTS1", "DTS2", "DTS3", "Opus", "BSSD", "mlpa"]);
const videoFormatIds = new Set(["HEVC", "VC-1", "AV01", "drac"]);

type Kind = "audio" | "video" | undefined;

function privateStreamKind(descriptors: Uint8Array): Kind {
  for (let o = 0; o + 2 <= descriptors.length;) {
    const tag = descriptors[o]!;
    const length = descriptors[o + 1]!;
    if (audioDescriptorTags.has(tag)) return "audio";
    if (tag === 0x05 && length >= 4) {
      const id = String.fromCharCode(...descriptors.subarray(o + 2, o + 6));
      if (audioFormatIds.has(id)) return "audio";
      if (videoFormatIds.has(id)) return "video";
    }
    o += 2 + length;
  }
  return undefined;
}

function streamKind(type: number, descriptors: Uint8Array): Kind {
  if (videoTypes.has(type)) return "video";
  if (audioTypes.has(type)) return "audio";
  return type === 0x06 ? privateStreamKind(descriptors) : undefined;
}

/**
 * Stream counts from the PAT and every PMT it names, when they all appear in `b`; undefined when the bytes
 * are not a transport stream or a table is missing (the caller keeps the magic number's category).
 */
export function readMpegTsStreams(b: Uint8Array): (MpegStreams & { streams: TsElementaryStream[] }) | undefined {
  const program = readProgramStreams(b);
  if (!program) return undefined;
  const out: MpegStreams & { streams: TsElementaryStream[] } = { video: 0, audio: 0, streams: [] };
  for (const { pid, type, info } of program) {
    const kind = streamKind(type, info);
    if (!kind) continue;
    out[kind]++;
    out.streams.push({ pid, type, kind });
  }
  return out;
}
