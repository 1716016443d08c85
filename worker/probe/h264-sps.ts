/**
 * The H.264 sequence parameter set (ISO 14496-10 7.3.2.1.1): coded size after cropping and, from the VUI's
 * timing info when present, the frame rate. Exp-Golomb codes are read by a bit cursor that never reads past
 * the NAL unit (missing bits read as 0) and caps each code at 32 leading zeros: linear, bounded.
 */
export interface SpsFacts { width: number; height: number; fps?: number }

/** Profiles whose SPS carries chroma format, bit depths and scaling matrices. */
const highProfiles = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);
/** An SPS is a few dozen bytes; more is not an SPS we read. */
const maxSpsBytes = 512;

/** A bit cursor over an RBSP: reads past the end give 0, so a truncated unit costs no more than a whole one. */
export class Bits {
  private bit = 0;
  constructor(private readonly b: Uint8Array) {}
  u(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++, this.bit++) v = v * 2 + (((this.b[this.bit >> 3] ?? 0) >> (7 - (this.bit & 7))) & 1);
    return v;
  }
  ue(): number {
    let zeros = 0;
    while (zeros < 32 && this.u(1) === 0) zeros++;
    return 2 ** zeros - 1 + this.u(zeros);
  }
  se(): number {
    const v = this.ue();
    return v & 1 ? (v + 1) / 2 : -v / 2;
  }
}

/** The NAL unit's RBSP: emulation prevention bytes (00 00 03) removed. */
export function rbsp(nal: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.min(nal.length, maxSpsBytes));
  let n = 0;
  for (let i = 0, zeros = 0; i < nal.length && n < out.length; i++) {
    if (zeros >= 2 && nal[i] === 3) { zeros = 0; continue; }
    zeros = nal[i] === 0 ? zeros + 1 : 0;
    out[n++] = nal[i]!;
  }
  return out.subarray(0, n);
}

/** The first SPS NAL unit (type 7) in an Annex B byte stream, parsed. */
export function findSps(b: Uint8Array): SpsFacts | undefined {
  for (let i = 0; i + 4 < b.length; i++) {
    if (b[i] === 0 && b[i + 1] === 0 && b[i + 2] === 1 && (b[i + 3]! & 0x1f) === 7) return parseSps(rbsp(b.subarray(i + 4, i + 4 + maxSpsBytes)));
  }
  return undefined;
}

function skipScalingList(r: Bits, size: number): void {
  let last = 8;
  let next = 8;
  for (let j = 0; j < size; j++) {
    if (next !== 0) next = (last + r.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}

export function parseSps(b: Uint8Array): SpsFacts | undefined {
  const r = new Bits(b);
  const profile = r.u(8);
  r.u(16); // constraint flags, level
  r.ue(); // seq_parameter_set_id
  let chroma = 1;
  if (highProfiles.has(profile)) {
    chroma = r.ue();
    if (chroma === 3) r.u(1);
    r.ue(); r.ue(); r.u(1); // bit depths, qpprime bypass
    if (r.u(1)) for (let i = 0; i < (chroma === 3 ? 12 : 8); i++) if (r.u(1)) skipScalingList(r, i < 6 ? 16 : 64);
  }
  r.ue(); // log2_max_frame_num_minus4
  const pocType = r.ue();
  if (pocType === 0) r.ue();
  else if (pocType === 1) {
    r.u(1); r.se(); r.se();
    const cycle = Math.min(r.ue(), 255);
    for (let i = 0; i < cycle; i++) r.se();
  }
  r.ue(); r.u(1); // max_num_ref_frames, gaps allowed
  const widthMbs = r.ue() + 1;
  const heightUnits = r.ue() + 1;
  const frameMbsOnly = r.u(1);
  if (!frameMbsOnly) r.u(1);
  r.u(1); // direct_8x8_inference
  const crop = r.u(1) ? [r.ue(), r.ue(), r.ue(), r.ue()] : [0, 0, 0, 0];
  const cropX = chroma === 1 || chroma === 2 ? 2 : 1;
  const cropY = (chroma === 1 ? 2 : 1) * (2 - frameMbsOnly);
  const width = widthMbs * 16 - cropX * (crop[0]! + crop[1]!);
  const height = (2 - frameMbsOnly) * heightUnits * 16 - cropY * (crop[2]! + crop[3]!);
  if (width <= 0 || height <= 0 || width > 16384 || height > 16384) return undefined;
  const facts: SpsFacts = { width, height };
  if (r.u(1)) { // VUI
    if (r.u(1)) { const idc = r.u(8); if (idc === 255) r.u(32); }
    if (r.u(1)) r.u(1); // overscan
    if (r.u(1)) { r.u(4); if (r.u(1)) r.u(24); } // video signal type, colour description
    if (r.u(1)) { r.ue(); r.ue(); } // chroma sample location
    if (r.u(1)) {
      const units = r.u(32);
      const scale = r.u(32);
      if (units > 0 && scale > 0) facts.fps = scale / (2 * units);
    }
  }
  return facts;
}
