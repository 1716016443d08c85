import type { CodecConfig } from "../../shared/media/codec-string.ts";

/** Bytes searched for the visual object sequence header (it opens a decoder configuration). */
const maxScanBytes = 256;

/**
 * MPEG-4 Part 2 (ISO/IEC 14496-2) video: the profile_and_level_indication after the visual_object_sequence start
 * code (00 00 01 B0) that opens the decoder configuration (Matroska CodecPrivate, MP4 esds DecoderSpecificInfo).
 * RFC 6381 writes it in decimal: mp4v.20.9 is Simple Profile level 0b, mp4v.20.240 Advanced Simple level 0.
 */
export function mpeg4VisualConfig(config: Uint8Array | undefined): CodecConfig {
  const end = Math.min(config?.length ?? 0, maxScanBytes) - 4;
  for (let i = 0; config && i < end; i++) {
    if (config[i] === 0 && config[i + 1] === 0 && config[i + 2] === 1 && config[i + 3] === 0xb0) {
      return { codec: "mpeg4", profileLevel: config[i + 4]! };
    }
  }
  return { codec: "mpeg4" };
}
