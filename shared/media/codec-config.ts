/**
 * Decoder configuration records to CodecConfig: the bytes MP4 sample entries (avcC, hvcC, vpcC, av1C, esds)
 * and Matroska CodecPrivate carry. Each reader looks at fixed offsets only (no loops over attacker sizes) and
 * returns undefined for a record too short to hold what it reads.
 */
import type { CodecConfig, ColourDescription } from "./codec-string.ts";

/** AVCDecoderConfigurationRecord (ISO/IEC 14496-15 5.3.3): profile, constraint flags, level at bytes 1-3. */
export function avcConfig(b: Uint8Array, entry: "avc1" | "avc3" = "avc1"): CodecConfig | undefined {
  if (b.length < 4) return undefined;
  return { codec: "h264", entry, profileIdc: b[1]!, constraints: b[2]!, levelIdc: b[3]! };
}

/** HEVCDecoderConfigurationRecord (ISO/IEC 14496-15 8.3.3): the general profile_tier_level fields, bytes 1-12. */
export function hevcConfig(b: Uint8Array, entry: "hvc1" | "hev1" = "hvc1"): CodecConfig | undefined {
  if (b.length < 13) return undefined;
  const compatibility = ((b[2]! << 24) | (b[3]! << 16) | (b[4]! << 8) | b[5]!) >>> 0;
  return {
    codec: "hevc", entry, profileSpace: b[1]! >> 6, tier: ((b[1]! >> 5) & 1) as 0 | 1, profileIdc: b[1]! & 0x1f,
    compatibility, constraintBytes: Array.from(b.subarray(6, 12)), levelIdc: b[12]!,
  };
}

/** VPCodecConfigurationBox body after its version and flags (VP9 ISOBMFF binding): profile, level, depth, colour. */
export function vpcConfig(b: Uint8Array): CodecConfig | undefined {
  if (b.length < 8) return undefined;
  return {
    codec: "vp9", profile: b[0]!, level: b[1]!, bitDepth: b[2]! >> 4,
    colour: { primaries: b[3]!, transfer: b[4]!, matrix: b[5]!, fullRange: (b[2]! & 1) === 1 },
  };
}

/** AV1CodecConfigurationRecord (AV1 ISOBMFF binding 2.3.3): profile, level, tier and bit depth in bytes 1-2. */
export function av1Config(b: Uint8Array, colour?: ColourDescription): CodecConfig | undefined {
  if (b.length < 4 || (b[0]! & 0x80) === 0) return undefined;
  const high = (b[2]! & 0x40) !== 0;
  const twelve = (b[2]! & 0x20) !== 0;
  return {
    codec: "av1", profile: b[1]! >> 5, level: b[1]! & 0x1f, tier: (b[2]! >> 7) as 0 | 1,
    bitDepth: high ? (twelve ? 12 : 10) : 8, ...(colour ? { colour } : {}),
  };
}

/** AudioSpecificConfig's object type (5 bits; 31 escapes to 32 + 6 more bits). */
export function aacConfig(b: Uint8Array): CodecConfig | undefined {
  if (b.length < 1) return undefined;
  const first = b[0]! >> 3;
  if (first !== 31) return first > 0 ? { codec: "aac", objectType: first } : undefined;
  if (b.length < 2) return undefined;
  return { codec: "aac", objectType: 32 + (((b[0]! & 0x07) << 3) | (b[1]! >> 5)) };
}

/**
 * Matroska V_VP9 CodecPrivate: feature blocks of (ID, length, value): 1 profile, 2 level, 3 bit depth
 * (https://www.webmproject.org/docs/container/#vp9-codec-feature-metadata-codecprivate). Missing features
 * take the caller's fallbacks (ffprobe's or the colour element's).
 */
export function matroskaVp9Features(b: Uint8Array): { profile?: number; level?: number; bitDepth?: number } {
  const out: { profile?: number; level?: number; bitDepth?: number } = {};
  // Each block is at least 3 bytes; the private data is bounded by the Tracks element's size cap.
  for (let o = 0; o + 2 < b.length;) {
    const id = b[o]!;
    const length = b[o + 1]!;
    const value = b[o + 2]!;
    if (length === 1 && id === 1) out.profile = value;
    if (length === 1 && id === 2) out.level = value;
    if (length === 1 && id === 3) out.bitDepth = value;
    o += 2 + Math.max(length, 1);
  }
  return out;
}

/**
 * VP9 level (as 10 x level number) from the picture size, when the stream does not declare one: the smallest
 * level whose maximum luma picture size holds it (VP9 levels table, https://www.webmproject.org/vp9/levels/).
 */
const vp9LevelPictureSizes: readonly [number, number][] = [
  [10, 36864], [11, 73728], [20, 122880], [21, 245760], [30, 552960], [31, 983040], [40, 2228224],
  [50, 8912896], [60, 35651584],
];
export function vp9LevelForSize(width: number | undefined, height: number | undefined): number {
  const pixels = (width ?? 0) * (height ?? 0);
  return vp9LevelPictureSizes.find(([, max]) => pixels <= max)?.[0] ?? 62;
}
