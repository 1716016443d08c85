/**
 * Raw H.264 and HEVC elementary streams (ITU-T H.264 / H.265 Annex B byte streams: start codes, then NAL units,
 * no container), as `.h264`/`.264`/`.hevc`/`.265` files and some HLS test streams are. Recognised by their first
 * NAL unit and a sequence parameter set in the head that parses; the SPS gives the size, profile and level (the
 * codecs entry), the H.264 VUI or the HEVC VPS or VUI the frame rate (as ffmpeg's parsers take it). A raw stream has no timestamps, so no duration.
 * One linear pass over the head, at most `maxNalUnits` units looked at.
 */
import type { CodecConfig } from "../../shared/media/codec-string.ts";
import { avcConfig, hevcConfig } from "../../shared/media/codec-config.ts";
import type { HeaderFacts } from "./header-facts.ts";
import { parseSps, rbsp } from "./h264-sps.ts";
import { parseHevcSps, parseHevcVpsRate } from "./hevc-parameter-sets.ts";

/** The MIME types IANA registers for the two byte streams (RFC 6184, RFC 7798). */
export const h264Mime = "video/H264";
export const hevcMime = "video/H265";

/** Leading zero bytes a stream may start with (leading_zero_8bits) before its first start code. */
const maxLeadingZeros = 64;
/** NAL units looked at for the parameter sets: encoders put them first, after an AUD and SEI at most. */
const maxNalUnits = 64;
/** A parameter set's bytes read: SPS/VPS are a few dozen bytes; a scaling-list-heavy SPS a few hundred. */
const maxParameterSetBytes = 1024;

interface NalUnit { start: number; end: number }

/** The NAL units of `b` (start code excluded), from its first start code on, at most `maxNalUnits`. */
function nalUnits(b: Uint8Array): NalUnit[] {
  let i = 0;
  while (i < maxLeadingZeros && i < b.length && b[i] === 0) i++;
  if (i < 2 || b[i] !== 1) return [];
  const units: NalUnit[] = [];
  let start = i + 1;
  for (let j = start; j + 2 < b.length && units.length < maxNalUnits; j++) {
    if (b[j] === 0 && b[j + 1] === 0 && b[j + 2] === 1) {
      // A four-byte start code's extra zero belongs to it, not to the unit before.
      units.push({ start, end: j > start && b[j - 1] === 0 ? j - 1 : j });
      start = j + 3;
      j += 2;
    }
  }
  if (units.length < maxNalUnits && start < b.length) units.push({ start, end: b.length });
  return units;
}

const avcProfileNames: Readonly<Record<number, string>> = {
  66: "Baseline", 77: "Main", 88: "Extended", 100: "High", 110: "High 10", 122: "High 4:2:2", 244: "High 4:4:4 Predictive", 44: "CAVLC 4:4:4",
};
const hevcProfileNames: Readonly<Record<number, string>> = { 1: "Main", 2: "Main 10", 3: "Main Still Picture", 4: "Rext" };

/** ffprobe's profile name: constraint_set1 makes Baseline constrained, constraint_set3 makes the High profiles intra. */
function avcProfileName(idc: number, constraints: number): string | undefined {
  if (idc === 66 && constraints & 0x40) return "Constrained Baseline";
  const name = avcProfileNames[idc];
  return name && constraints & 0x10 && [110, 122, 244].includes(idc) ? `${name} Intra` : name;
}

function hevcPixelFormat(chroma: number, depth: number): string | undefined {
  const base = ["gray", "yuv420p", "yuv422p", "yuv444p"][chroma];
  if (!base || (depth !== 8 && depth !== 10 && depth !== 12)) return undefined;
  return depth === 8 ? base : `${base}${depth}le`;
}

/** The H.264 stream's facts, when its first unit is one a stream starts with and its SPS parses. */
function readH264(b: Uint8Array, units: NalUnit[]): HeaderFacts | undefined {
  const first = b[units[0]!.start]!;
  // AUD (9), SEI (6) carry nal_ref_idc 0; an SPS (7) a non-zero one; the forbidden bit is 0.
  if (first !== 0x09 && first !== 0x06 && !((first & 0x9f) === 0x07 && first & 0x60)) return undefined;
  const sps = units.find((u) => (b[u.start]! & 0x1f) === 7 && (b[u.start]! & 0x80) === 0);
  if (!sps) return undefined;
  const body = rbsp(b.subarray(sps.start + 1, Math.min(sps.end, sps.start + 1 + maxParameterSetBytes)));
  const parsed = parseSps(body);
  if (!parsed || body.length < 3) return undefined;
  const config: CodecConfig | undefined = avcConfig(new Uint8Array([1, body[0]!, body[1]!, body[2]!]));
  return {
    video: 1, audio: 0, reader: "h264-annexb", timeless: true, width: parsed.width, height: parsed.height, fps: parsed.fps,
    videoCodec: "h264", videoProfile: avcProfileName(body[0]!, body[1]!), videoConfig: config,
  };
}

/** HEVC's two-byte NAL header: forbidden bit 0, layer 0, temporal id plus 1 at least 1. */
const hevcType = (b: Uint8Array, u: NalUnit) => (b[u.start]! & 0x81) === 0 && b[u.start + 1] !== undefined && (b[u.start + 1]! & 0xf8) === 0
  && (b[u.start + 1]! & 7) > 0 ? b[u.start]! >> 1 : -1;

/** The HEVC stream's facts, when its first unit is a VPS, SPS, AUD or prefix SEI and its SPS parses. */
function readHevc(b: Uint8Array, units: NalUnit[]): HeaderFacts | undefined {
  if (![32, 33, 35, 39].includes(hevcType(b, units[0]!))) return undefined;
  const payload = (u: NalUnit) => rbsp(b.subarray(u.start + 2, Math.min(u.end, u.start + 2 + maxParameterSetBytes)));
  const sps = units.find((u) => hevcType(b, u) === 33);
  const parsed = sps ? parseHevcSps(payload(sps)) : undefined;
  if (!parsed) return undefined;
  const vps = units.find((u) => hevcType(b, u) === 32);
  const config = hevcConfig(new Uint8Array([1, ...parsed.profileTierLevel]));
  const profileIdc = parsed.profileTierLevel[0]! & 0x1f;
  return {
    video: 1, audio: 0, reader: "hevc-annexb", timeless: true, width: parsed.width, height: parsed.height, fps: (vps ? parseHevcVpsRate(payload(vps)) : undefined) ?? parsed.fps,
    videoCodec: "hevc", videoProfile: hevcProfileNames[profileIdc], videoConfig: config, pixelFormat: hevcPixelFormat(parsed.chromaFormat, parsed.bitDepth),
  };
}

/** What the head of a raw H.264 or HEVC stream says, or undefined when it is not one. */
export function readAnnexB(head: Uint8Array): HeaderFacts | undefined {
  const units = nalUnits(head).filter((u) => u.end > u.start);
  if (units.length === 0) return undefined;
  // HEVC first: its VPS/SPS header bytes (0x40/0x42 then 0x01) are no unit an H.264 stream starts with.
  return readHevc(head, units) ?? readH264(head, units);
}

/** The stream's MIME type, when the head is a raw H.264 or HEVC stream. */
export function annexBMimeOf(head: Uint8Array): string | undefined {
  const facts = readAnnexB(head);
  return facts ? (facts.videoCodec === "hevc" ? hevcMime : h264Mime) : undefined;
}
