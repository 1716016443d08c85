/**
 * ffprobe's stream fields to CodecConfig, for files the edge could not read (the runner's ffprobe output).
 * ffprobe prints names, not the configuration bytes, so the profile's constraint flags and HEVC's
 * constraint bytes take the values encoders write for that profile; they do not change what a browser decides.
 */
import { vp9LevelForSize } from "./codec-config.ts";
import type { CodecConfig, ColourDescription } from "./codec-string.ts";

/** The ffprobe stream fields this reads (a structural subset of the runner's FfprobeStream). */
export interface FfprobeCodecFields {
  codec_name?: string | undefined;
  codec_tag_string?: string | undefined;
  profile?: string | undefined;
  level?: number | undefined;
  pix_fmt?: string | undefined;
  width?: number | undefined;
  height?: number | undefined;
  color_primaries?: string | undefined;
  color_transfer?: string | undefined;
  color_space?: string | undefined;
  color_range?: string | undefined;
}

const avcProfiles: Readonly<Record<string, [number, number]>> = {
  "Constrained Baseline": [66, 0xe0], Baseline: [66, 0x00], Main: [77, 0x40], Extended: [88, 0x00], High: [100, 0x00],
  "High 10": [110, 0x00], "High 4:2:2": [122, 0x00], "High 4:4:4 Predictive": [244, 0x00],
};
/** HEVC profile idc and its profile_compatibility_flags (Main also sets Main 10's flag, as encoders do). */
const hevcProfiles: Readonly<Record<string, [number, number]>> = {
  Main: [1, 0x60000000], "Main 10": [2, 0x20000000], "Main Still Picture": [3, 0x10000000], Rext: [4, 0x08000000],
};
const aacProfiles: Readonly<Record<string, number>> = { Main: 1, LC: 2, SSR: 3, LTP: 4, "HE-AAC": 5, "HE-AACv2": 29, LD: 23, ELD: 39 };
const av1Profiles: Readonly<Record<string, number>> = { Main: 0, High: 1, Professional: 2 };
/** H.273 code points of ffprobe's colour names. */
const primaries: Readonly<Record<string, number>> = { bt709: 1, bt470m: 4, bt470bg: 5, smpte170m: 6, smpte240m: 7, bt2020: 9, smpte432: 12 };
const transfers: Readonly<Record<string, number>> = {
  bt709: 1, smpte170m: 6, smpte240m: 7, linear: 8, "iec61966-2-1": 13, "bt2020-10": 14, "bt2020-12": 15, smpte2084: 16, "arib-std-b67": 18,
};
const matrices: Readonly<Record<string, number>> = { gbr: 0, bt709: 1, fcc: 4, bt470bg: 5, smpte170m: 6, smpte240m: 7, bt2020nc: 9, bt2020c: 10 };

/** 8, 10 or 12 from a pixel format name (yuv420p10le); 8 when it names no depth. */
export function bitDepthOf(pixFmt: string | undefined): number {
  const match = /p(10|12)(le|be)$/.exec(pixFmt ?? "");
  return match ? Number(match[1]) : 8;
}

function colourOf(s: FfprobeCodecFields): ColourDescription | undefined {
  const p = primaries[s.color_primaries ?? ""];
  const t = transfers[s.color_transfer ?? ""];
  const m = matrices[s.color_space ?? ""];
  if (p === undefined && t === undefined && m === undefined) return undefined;
  return { primaries: p ?? 1, transfer: t ?? 1, matrix: m ?? 1, fullRange: s.color_range === "pc" };
}

/** The stream's CodecConfig; undefined for codecs browsers have no codecs string for. `inMp4`: ISOBMFF container. */
export function codecConfigFromFfprobe(s: FfprobeCodecFields, inMp4: boolean): CodecConfig | undefined {
  const level = s.level !== undefined && s.level > 0 ? s.level : undefined;
  switch (s.codec_name) {
    case "h264": {
      const [idc, constraints] = avcProfiles[s.profile ?? ""] ?? [100, 0];
      return { codec: "h264", entry: s.codec_tag_string === "avc3" ? "avc3" : "avc1", profileIdc: idc, constraints, levelIdc: level ?? 31 };
    }
    case "hevc": {
      const [idc, compatibility] = hevcProfiles[s.profile ?? ""] ?? [1, 0x60000000];
      return {
        codec: "hevc", entry: s.codec_tag_string === "hev1" ? "hev1" : "hvc1", profileSpace: 0, tier: 0, profileIdc: idc,
        compatibility, constraintBytes: [0xb0, 0, 0, 0, 0, 0], levelIdc: level ?? 93,
      };
    }
    case "vp9": {
      const profile = Number(/(\d)$/.exec(s.profile ?? "")?.[1] ?? 0);
      const colour = colourOf(s);
      return { codec: "vp9", profile, level: level ?? vp9LevelForSize(s.width, s.height), bitDepth: bitDepthOf(s.pix_fmt), ...(colour ? { colour } : {}) };
    }
    case "av1": {
      const colour = colourOf(s);
      return {
        codec: "av1", profile: av1Profiles[s.profile ?? ""] ?? 0, level: level ?? 8, tier: 0, bitDepth: bitDepthOf(s.pix_fmt),
        ...(colour ? { colour } : {}),
      };
    }
    case "aac": return { codec: "aac", objectType: aacProfiles[s.profile ?? ""] ?? 2 };
    case "mp3": return inMp4 ? { codec: "mp3-in-mp4" } : { codec: "mp3" };
    case "vp8": case "opus": case "vorbis": case "flac": case "ac3": case "eac3": case "theora": case "alac": case "speex":
      return { codec: s.codec_name };
    default:
      // pcm_s16le, pcm_f32le, ...: linear PCM whatever the sample format.
      return s.codec_name?.startsWith("pcm_") && !inMp4 ? { codec: "pcm" } : undefined;
  }
}
