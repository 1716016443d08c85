/**
 * Whether a RIFF WAVE file keeps chunks after its `data` chunk (where C2PA tools put the manifest store, as a
 * `C2PA` chunk, and where other tools put LIST/id3 tags): the walk reads chunk headers only, in the bytes held,
 * at most `maxChunks` of them.
 */
const maxChunks = 64;

export function waveHasChunksAfterData(head: Uint8Array, size: number): boolean {
  if (head.length < 12 || ascii(head, 0) !== "RIFF" || ascii(head, 8) !== "WAVE") return false;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  let at = 12;
  for (let n = 0; n < maxChunks && at + 8 <= head.length; n++) {
    const length = view.getUint32(at + 4, true);
    const end = at + 8 + length + (length & 1);
    if (ascii(head, at) === "data") return end < size;
    at = end;
  }
  return false;
}

function ascii(b: Uint8Array, at: number): string {
  return String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);
}
