/**
 * RFC 6381 `codecs` strings, exactly what a page passes to `canPlayType` / `MediaSource.isTypeSupported`.
 * Formats: ISO/IEC 14496-15 annex E (avc1, hvc1), VP9 codec ISOBMFF binding section "Codecs Parameter String"
 * (https://www.webmproject.org/vp9/mp4/), AV1 ISOBMFF binding section 5 (https://aomediacodec.github.io/av1-isobmff/#codecsparam),
 * MP4 registration authority object types (mp4a.40.N), and the short names browsers accept for the rest
 * (https://developer.mozilla.org/en-US/docs/Web/Media/Guides/Formats/codecs_parameter).
 */

/** The decoder configuration one track declares; every field comes from the container or ffprobe. */
export type CodecConfig =
  | { codec: "h264"; entry?: "avc1" | "avc3"; profileIdc: number; constraints: number; levelIdc: number }
  | {
    codec: "hevc"; entry?: "hvc1" | "hev1"; profileSpace: number; tier: 0 | 1; profileIdc: number;
    /** general_profile_compatibility_flags as read (bit 31 = flag 0). */
    compatibility: number;
    /** The six general constraint indicator bytes. */
    constraintBytes: readonly number[]; levelIdc: number;
  }
  | { codec: "vp9"; profile: number; level: number; bitDepth: number; colour?: ColourDescription }
  | { codec: "av1"; profile: number; level: number; tier: 0 | 1; bitDepth: number; colour?: ColourDescription }
  | { codec: "aac"; objectType: number }
  | { codec: "mp3-in-mp4" }
  | { codec: "vp8" | "opus" | "vorbis" | "flac" | "ac3" | "eac3" | "mp3" | "theora" | "alac" | "speex" }
  /** MPEG-4 Part 2 video; profile_and_level_indication from the visual object sequence header. */
  | { codec: "mpeg4"; profileLevel?: number }
  /** Linear PCM (WAVE format tag 1). */
  | { codec: "pcm" };

/** ISO/IEC 23091-2 code points (1 = BT.709, 16 = PQ, 18 = HLG, 9 = BT.2020). */
export interface ColourDescription { primaries: number; transfer: number; matrix: number; fullRange: boolean }

const hex2 = (n: number) => (n & 0xff).toString(16).toUpperCase().padStart(2, "0");
const dec2 = (n: number) => String(n).padStart(2, "0");

/** The codecs-parameter entry of one track. */
export function codecString(config: CodecConfig): string {
  switch (config.codec) {
    case "h264":
      return `${config.entry ?? "avc1"}.${hex2(config.profileIdc)}${hex2(config.constraints)}${hex2(config.levelIdc)}`;
    case "hevc": return hevcString(config);
    case "vp9": {
      const base = `vp09.${dec2(config.profile)}.${dec2(config.level)}.${dec2(config.bitDepth)}`;
      // The optional fields are needed only when the colour is not the default (BT.709, limited range): HDR.
      const c = config.colour;
      if (!c || isDefaultColour(c)) return base;
      return `${base}.01.${dec2(c.primaries)}.${dec2(c.transfer)}.${dec2(c.matrix)}.${c.fullRange ? "01" : "00"}`;
    }
    case "av1": {
      const base = `av01.${config.profile}.${dec2(config.level)}${config.tier ? "H" : "M"}.${dec2(config.bitDepth)}`;
      const c = config.colour;
      if (!c || isDefaultColour(c)) return base;
      return `${base}.0.110.${dec2(c.primaries)}.${dec2(c.transfer)}.${dec2(c.matrix)}.${c.fullRange ? 1 : 0}`;
    }
    case "aac": return `mp4a.40.${config.objectType}`;
    case "mp3-in-mp4": return "mp4a.6B";
    case "ac3": return "ac-3";
    case "eac3": return "ec-3";
    // RFC 2361: a WAVE format tag is the codecs entry of audio/wav; linear PCM is 1.
    case "pcm": return "1";
    case "mpeg4": return config.profileLevel ? `mp4v.20.${config.profileLevel}` : "mp4v.20";
    default: return config.codec;
  }
}

function isDefaultColour(c: ColourDescription): boolean {
  return c.primaries === 1 && c.transfer === 1 && c.matrix === 1 && !c.fullRange;
}

/** hvc1.[A-C]profile.compat(bit-reversed hex).(L|H)level.constraint bytes (trailing zero bytes dropped). */
function hevcString(c: Extract<CodecConfig, { codec: "hevc" }>): string {
  const space = ["", "A", "B", "C"][c.profileSpace & 3];
  let reversed = 0;
  for (let bit = 0; bit < 32; bit++) if (c.compatibility & (1 << bit)) reversed |= 1 << (31 - bit);
  const bytes = [...c.constraintBytes];
  while (bytes.length > 0 && bytes[bytes.length - 1] === 0) bytes.pop();
  const tail = bytes.map((b) => `.${(b & 0xff).toString(16).toUpperCase()}`).join("");
  return `${c.entry ?? "hvc1"}.${space}${c.profileIdc}.${(reversed >>> 0).toString(16).toUpperCase()}.${c.tier ? "H" : "L"}${c.levelIdc}${tail}`;
}

/** Containers whose MIME type names one codec: browsers answer "" when given a codecs parameter for them. */
const singleCodecTypes: ReadonlySet<string> = new Set(["audio/mpeg", "audio/flac", "audio/x-flac", "audio/wav", "audio/x-wav", "audio/aac"]);

/**
 * `type; codecs="a, b"` for a container MIME and its tracks' codec entries (video first). A single-codec
 * container stays bare (Chromium answers "" to `audio/flac; codecs="flac"` and false to MSE for `audio/mpeg; codecs="mp3"`).
 */
export function mimeWithCodecs(mime: string, codecs: readonly string[]): string {
  const base = mime.split(";")[0]!.trim().toLowerCase();
  if (codecs.length === 0 || singleCodecTypes.has(base)) return base;
  return `${base}; codecs="${codecs.join(", ")}"`;
}

/** The codec entries of a `codecs="..."` parameter (bounded: a type string is at most a few hundred bytes). */
export function codecsOf(type: string): string[] {
  const at = type.indexOf("codecs=");
  if (at < 0) return [];
  return type.slice(at + 7).replace(/"/g, "").split(",").map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Bounds of a stored codecs list: tracks named, and the length of one entry (the longest, AV1 with colour, is 34). */
export const maxCodecEntries = 8;
export const maxCodecEntryLength = 64;
