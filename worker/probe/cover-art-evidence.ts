/**
 * Whether an audio file may carry cover art, from the bytes the probe already holds (no read of its own): an
 * ID3v2 APIC/PIC frame, a FLAC PICTURE block, an MP4 `covr` atom, a Vorbis-comment METADATA_BLOCK_PICTURE.
 * "No" only where the bytes held show the whole tag area without one; where they end first the answer is
 * "maybe" (the runner decodes the picture or reports there is none). Every walk is linear in the bytes held,
 * with a fixed step count, so a hostile header costs no more than reading it.
 */

/** Header boxes or blocks looked at before answering "maybe": a real file has a handful. */
const maxWalkSteps = 4096;

export type CoverArtEvidence = "found" | "none" | "maybe";

/** `head`: the bytes held from offset 0; `tail`: those held up to the end (a moov after the samples). */
export function coverArtEvidence(head: Uint8Array, tail?: { offset: number; bytes: Uint8Array }): CoverArtEvidence {
  let start = 0;
  if (ascii(head, 0, 3) === "ID3") {
    const id3 = id3v2Evidence(head);
    if (id3 !== "none") return id3;
    start = 10 + syncsafe(head, 6); // some FLAC files open with an ID3 tag before fLaC
  }
  if (ascii(head, start, 4) === "fLaC") return flacEvidence(head, start + 4);
  if (ascii(head, 0, 4) === "OggS") return indexOfAscii(head, "metadata_block_picture", true) >= 0 ? "found" : "none";
  if (ascii(head, 4, 4) === "ftyp") return mp4Evidence(head, tail);
  return "none";
}

/** The tag's frames are searched for the picture frame's id; a tag longer than the bytes held is "maybe". */
function id3v2Evidence(head: Uint8Array): CoverArtEvidence {
  if (head.length < 10) return "maybe";
  const version = head[3]!;
  const end = 10 + syncsafe(head, 6);
  const held = head.subarray(10, Math.min(end, head.length));
  // A text frame may spell the id by chance: that costs one runner job that then finds nothing.
  const found = indexOfAscii(held, version === 2 ? "PIC" : "APIC", false) >= 0;
  if (found) return "found";
  return end > head.length ? "maybe" : "none";
}

/** FLAC metadata block headers: type 6 is PICTURE; the last-block flag ends the walk. */
function flacEvidence(head: Uint8Array, from: number): CoverArtEvidence {
  let at = from;
  for (let step = 0; step < maxWalkSteps; step++) {
    if (at + 4 > head.length) return "maybe";
    const header = head[at]!;
    if ((header & 0x7f) === 6) return "found";
    if (header & 0x80) return "none";
    at += 4 + ((head[at + 1]! << 16) | (head[at + 2]! << 8) | head[at + 3]!);
  }
  return "maybe";
}

/** The top-level boxes are walked to the moov (in the head, or in the tail when it follows the samples). */
function mp4Evidence(head: Uint8Array, tail?: { offset: number; bytes: Uint8Array }): CoverArtEvidence {
  let at = 0;
  for (let step = 0; step < maxWalkSteps; step++) {
    const view = at < head.length ? { bytes: head, rel: at } : tail && at >= tail.offset ? { bytes: tail.bytes, rel: at - tail.offset } : undefined;
    if (!view || view.rel + 8 > view.bytes.length) return "maybe";
    const { bytes, rel } = view;
    let size = ((bytes[rel]! << 24) >>> 0) + ((bytes[rel + 1]! << 16) | (bytes[rel + 2]! << 8) | bytes[rel + 3]!);
    if (size === 1) {
      if (rel + 16 > bytes.length) return "maybe";
      size = Number(new DataView(bytes.buffer, bytes.byteOffset + rel + 8, 8).getBigUint64(0));
    }
    const type = ascii(bytes, rel + 4, 4);
    if (type === "moov") {
      const end = size === 0 ? bytes.length : rel + size;
      if (end > bytes.length) return "maybe";
      return indexOfAscii(bytes.subarray(rel, end), "covr", false) >= 0 ? "found" : "none";
    }
    if (size < 8) return "maybe"; // to the end of the file, or malformed: no moov where it can be seen
    at += size;
  }
  return "maybe";
}

function syncsafe(bytes: Uint8Array, at: number): number {
  if (at + 4 > bytes.length) return 0;
  return ((bytes[at]! & 0x7f) << 21) | ((bytes[at + 1]! & 0x7f) << 14) | ((bytes[at + 2]! & 0x7f) << 7) | (bytes[at + 3]! & 0x7f);
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  if (at < 0 || at + length > bytes.length) return "";
  let out = "";
  for (let i = at; i < at + length; i++) out += String.fromCharCode(bytes[i]!);
  return out;
}

/**
 * Position of an ASCII needle (optionally ignoring ASCII case), or -1. The needle is a short constant without
 * repeated prefixes, so the naive scan stays linear in practice: at most needle-length steps per byte.
 */
function indexOfAscii(bytes: Uint8Array, needle: string, ignoreCase: boolean): number {
  const codes = [...needle].map((ch) => ch.charCodeAt(0));
  const fold = (b: number) => (ignoreCase && b >= 0x41 && b <= 0x5a ? b + 0x20 : b);
  const first = codes[0]!;
  outer: for (let i = 0; i + codes.length <= bytes.length; i++) {
    if (fold(bytes[i]!) !== first) continue;
    for (let j = 1; j < codes.length; j++) if (fold(bytes[i + j]!) !== codes[j]) continue outer;
    return i;
  }
  return -1;
}
