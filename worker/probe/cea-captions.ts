/**
 * CEA-608/708 captions carried inside H.264/HEVC video (ATSC A/53 Part 4): SEI user data registered by ITU-T T.35
 * (country 0xB5, provider 0x0031, user identifier "GA94", type 0x03) holding cc_data. Found by one linear scan of
 * the bytes at hand (the first access units of a transport stream, or of an MP4's first samples when the head
 * holds them); a match counts only when its cc_data is well formed (marker bits) and one construct is valid, so
 * a stream of garbage flags nothing.
 */
const signature = [0xb5, 0x00, 0x31, 0x47, 0x41, 0x39, 0x34, 0x03] as const;
/** Matches examined before giving up (each costs a few bytes). */
const maxMatches = 256;

export type CeaFormat = "cea-608" | "cea-708";

/** The caption formats the first well-formed cc_data in `b` carries (608 fields 1/2, 708 DTVCC), or none. */
export function ceaCaptions(b: Uint8Array): CeaFormat[] {
  let matches = 0;
  for (let o = b.indexOf(signature[0]); o >= 0 && o + signature.length + 2 < b.length; o = b.indexOf(signature[0], o + 1)) {
    if (!signature.every((v, i) => b[o + i] === v)) continue;
    if (++matches > maxMatches) break;
    const found = ccData(unescape(b.subarray(o + signature.length, Math.min(b.length, o + signature.length + 2 + 31 * 3 + 8))));
    if (found.length > 0) return found;
  }
  return [];
}

/** Removes H.264/HEVC emulation prevention bytes (00 00 03 -> 00 00) from a short window. */
function unescape(w: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < w.length; i++) {
    if (w[i] === 3 && i >= 2 && w[i - 1] === 0 && w[i - 2] === 0) continue;
    out.push(w[i]!);
  }
  return Uint8Array.from(out);
}

/** cc_data(): process_cc_data_flag, cc_count, em_data, then cc_count constructs of marker(5) valid(1) type(2) + 2 bytes. */
function ccData(d: Uint8Array): CeaFormat[] {
  const flags = d[0];
  if (flags === undefined || !(flags & 0x40)) return [];
  const count = flags & 0x1f;
  if (count === 0 || 2 + count * 3 > d.length) return [];
  const formats = new Set<CeaFormat>();
  for (let i = 0; i < count; i++) {
    const head = d[2 + i * 3]!;
    if ((head & 0xf8) !== 0xf8) return []; // marker bits: not cc_data
    const valid = (head & 0x04) !== 0;
    const type = head & 0x03;
    if (valid) formats.add(type <= 1 ? "cea-608" : "cea-708");
  }
  return [...formats];
}
