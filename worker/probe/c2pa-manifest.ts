import type { C2pa } from "../../shared/shapes/provenance.ts";

const jumbfType = new TextEncoder().encode("jumb");
const c2paLabel = new TextEncoder().encode("c2pa");

/**
 * Whether the bytes carry a C2PA manifest store: a JUMBF superbox (`jumb`) whose description box is labelled
 * `c2pa` (JPEG APP11, PNG caBX, WebP/RIFF C2PA chunk, ISO BMFF uuid box, ID3 GEOB and WAV C2PA chunks all embed
 * the same store). A byte search, not a parse: reading the store is the SDK's job.
 */
export function hasC2paStore(b: Uint8Array): boolean {
  for (let i = indexOf(b, jumbfType, 0); i >= 0; i = indexOf(b, jumbfType, i + 4)) {
    // The description box (jumd) follows the superbox header; its label follows the 16-byte type UUID and toggles.
    const window = b.subarray(i, Math.min(b.length, i + 64));
    if (indexOf(window, c2paLabel, 0) >= 0) return true;
  }
  return false;
}

/** The C2PA facts of bytes already read (presence only until the SDK reads the store). */
export async function readC2pa(_mime: string, bytes: Uint8Array, _whole: boolean): Promise<C2pa> {
  return { present: hasC2paStore(bytes) };
}

function indexOf(b: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!;
  for (let i = b.indexOf(first, from); i >= 0 && i + needle.length <= b.length; i = b.indexOf(first, i + 1)) {
    let k = 1;
    while (k < needle.length && b[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
}
