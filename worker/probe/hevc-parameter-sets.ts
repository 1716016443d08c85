/**
 * HEVC parameter sets (ITU-T H.265 7.3.2.1 VPS, 7.3.2.2 SPS), read only as far as the facts the edge reports: the
 * general profile_tier_level (the same 12 bytes an hvcC record carries), the picture size after the conformance
 * window, and the frame rate of the VPS timing (which ffmpeg's parser prefers) or of the SPS's VUI.
 * Each reader takes an RBSP after the two-byte NAL header and reads it with a bounded bit cursor (h264-sps.ts).
 */
import { Bits } from "./h264-sps.ts";

export interface HevcSpsFacts {
  width: number;
  height: number;
  /** general_profile_space, tier, profile_idc, compatibility flags, constraint bytes, level: hvcC bytes 1-12. */
  profileTierLevel: Uint8Array;
  chromaFormat: number;
  bitDepth: number;
  /** time_scale / num_units_in_tick of the VUI, when it carries timing. */
  fps?: number;
}

/** The largest picture side the edge reports (HEVC level 6.2 allows 8444; this leaves room and refuses junk). */
const maxSide = 16384;
/** sps_max_sub_layers_minus1 is 3 bits; at most 7 sub-layers. */
const maxSubLayers = 7;
/** The standard's bounds on the SPS's lists (num_short_term_ref_pic_sets <= 64, num_long_term_ref_pics_sps <= 32). */
const maxShortTermSets = 64;
const maxLongTermPics = 32;
const maxDeltaPocs = 32;

/** Skips the sub-layer part of profile_tier_level after the 96 general bits. */
function skipSubLayers(r: Bits, maxSubLayersMinus1: number): void {
  const present: [number, number][] = [];
  for (let i = 0; i < maxSubLayersMinus1; i++) present.push([r.u(1), r.u(1)]);
  if (maxSubLayersMinus1 > 0) for (let i = maxSubLayersMinus1; i < 8; i++) r.u(2);
  for (const [profile, level] of present) {
    if (profile) { r.u(32); r.u(32); r.u(24); }
    if (level) r.u(8);
  }
}

/** The SPS's size, chroma format, depth and general profile_tier_level; undefined for a size no picture has. */
export function parseHevcSps(b: Uint8Array): HevcSpsFacts | undefined {
  if (b.length < 13) return undefined;
  const r = new Bits(b);
  r.u(4); // sps_video_parameter_set_id
  const subLayersMinus1 = Math.min(r.u(3), maxSubLayers - 1);
  r.u(1); // temporal_id_nesting
  const profileTierLevel = new Uint8Array(12);
  for (let i = 0; i < 12; i++) profileTierLevel[i] = r.u(8);
  skipSubLayers(r, subLayersMinus1);
  r.ue(); // sps_seq_parameter_set_id
  const chromaFormat = r.ue();
  if (chromaFormat > 3) return undefined;
  const separatePlanes = chromaFormat === 3 ? r.u(1) : 0;
  const codedWidth = r.ue();
  const codedHeight = r.ue();
  const [subW, subH] = separatePlanes || chromaFormat === 0 || chromaFormat === 3 ? [1, 1] : chromaFormat === 2 ? [2, 1] : [2, 2];
  const window = r.u(1) ? [r.ue(), r.ue(), r.ue(), r.ue()] : [0, 0, 0, 0];
  const width = codedWidth - subW * (window[0]! + window[1]!);
  const height = codedHeight - subH * (window[2]! + window[3]!);
  const bitDepth = r.ue() + 8;
  if (width <= 0 || height <= 0 || width > maxSide || height > maxSide || bitDepth > 16) return undefined;
  const facts: HevcSpsFacts = { width, height, profileTierLevel, chromaFormat, bitDepth };
  const fps = vuiRate(r, subLayersMinus1);
  if (fps) facts.fps = fps;
  return facts;
}

/** scaling_list_data() (7.3.4): skipped. */
function skipScalingLists(r: Bits): void {
  for (let size = 0; size < 4; size++) {
    for (let matrix = 0; matrix < 6; matrix += size === 3 ? 3 : 1) {
      if (!r.u(1)) { r.ue(); continue; }
      const coefficients = Math.min(64, 1 << (4 + (size << 1)));
      if (size > 1) r.se();
      for (let i = 0; i < coefficients; i++) r.se();
    }
  }
}

/** st_ref_pic_set(idx) as the SPS carries it (7.3.7); returns its NumDeltaPocs, which a later set may predict from. */
function skipShortTermSet(r: Bits, idx: number, deltaPocs: number[]): number {
  if (idx > 0 && r.u(1)) {
    r.u(1); r.ue(); // delta_rps_sign, abs_delta_rps_minus1
    let count = 0;
    for (let j = 0; j <= (deltaPocs[idx - 1] ?? 0); j++) {
      const used = r.u(1);
      if (used || r.u(1)) count++;
    }
    return Math.min(count, maxDeltaPocs);
  }
  const negative = Math.min(r.ue(), maxDeltaPocs / 2);
  const positive = Math.min(r.ue(), maxDeltaPocs / 2);
  for (let i = 0; i < negative + positive; i++) { r.ue(); r.u(1); }
  return negative + positive;
}

/** Reads on from the SPS's bit_depth_chroma to the VUI's timing (7.3.2.2.1, E.2.1); the rate when it is there. */
function vuiRate(r: Bits, subLayersMinus1: number): number | undefined {
  r.ue(); // bit_depth_chroma_minus8
  const pocBits = Math.min(r.ue() + 4, 16);
  const orderingForAll = r.u(1);
  for (let i = orderingForAll ? 0 : subLayersMinus1; i <= subLayersMinus1; i++) { r.ue(); r.ue(); r.ue(); }
  for (let i = 0; i < 6; i++) r.ue(); // coding and transform block sizes, hierarchy depths
  if (r.u(1) && r.u(1)) skipScalingLists(r);
  r.u(1); r.u(1); // amp, sample_adaptive_offset
  if (r.u(1)) { r.u(4); r.u(4); r.ue(); r.ue(); r.u(1); } // pcm
  const sets = Math.min(r.ue(), maxShortTermSets);
  const deltaPocs: number[] = [];
  for (let i = 0; i < sets; i++) deltaPocs.push(skipShortTermSet(r, i, deltaPocs));
  if (r.u(1)) {
    const longTerm = Math.min(r.ue(), maxLongTermPics);
    for (let i = 0; i < longTerm; i++) { r.u(pocBits); r.u(1); }
  }
  r.u(1); r.u(1); // temporal_mvp, strong_intra_smoothing
  if (!r.u(1)) return undefined; // vui_parameters_present
  if (r.u(1) && r.u(8) === 255) r.u(32); // aspect ratio
  if (r.u(1)) r.u(1); // overscan
  if (r.u(1)) { r.u(4); if (r.u(1)) r.u(24); } // video signal type, colour description
  if (r.u(1)) { r.ue(); r.ue(); } // chroma sample location
  r.u(3); // neutral_chroma, field_seq, frame_field_info
  if (r.u(1)) { r.ue(); r.ue(); r.ue(); r.ue(); } // default display window
  if (!r.u(1)) return undefined;
  const units = r.u(32);
  const scale = r.u(32);
  return units > 0 && scale > 0 ? scale / units : undefined;
}

/** The VPS's frame rate (time_scale / num_units_in_tick), when it carries timing. */
export function parseHevcVpsRate(b: Uint8Array): number | undefined {
  const r = new Bits(b);
  r.u(4); r.u(2); r.u(6); // vps id, base layer flags, max_layers_minus1
  const subLayersMinus1 = Math.min(r.u(3), maxSubLayers - 1);
  r.u(1); r.u(16); // temporal_id_nesting, reserved 0xffff
  for (let i = 0; i < 12; i++) r.u(8);
  skipSubLayers(r, subLayersMinus1);
  const orderingForAll = r.u(1);
  for (let i = orderingForAll ? 0 : subLayersMinus1; i <= subLayersMinus1; i++) { r.ue(); r.ue(); r.ue(); }
  const maxLayerId = r.u(6);
  // vps_num_layer_sets_minus1 is at most 1023; each set lists maxLayerId + 1 flags (at most 64).
  const layerSets = Math.min(r.ue(), 1023);
  for (let i = 1; i <= layerSets; i++) for (let j = 0; j <= maxLayerId; j++) r.u(1);
  if (!r.u(1)) return undefined;
  const units = r.u(32);
  const scale = r.u(32);
  return units > 0 && scale > 0 ? scale / units : undefined;
}
