import { uint, vint } from "./tail-duration.ts";

/**
 * The first video track's DefaultDuration (ns per frame) from the Tracks element in the head: the frame rate
 * Matroska declares, which music-metadata does not expose. Undefined when Tracks is not in these bytes.
 */
export function matroskaVideoFps(head: Uint8Array): number | undefined {
  // The ID also appears inside the SeekHead (as a SeekID value): try each occurrence until one holds TrackEntries.
  for (let at = find(head, tracksId, 0); at !== undefined; at = find(head, tracksId, at + 1)) {
    const size = vint(head, at + 4);
    if (!size) continue;
    const start = at + 4 + size.length;
    const end = Math.min(head.length, start + (size.unknown ? head.length : size.value));
    const entries = [...children(head, start, end)].filter((e) => e.id === 0xae);
    if (entries.length === 0) continue;
    for (const entry of entries) {
      let type: number | undefined;
      let frameNs: number | undefined;
      for (const field of children(head, entry.start, entry.end)) {
        if (field.id === 0x83) type = uint(head, field.start, field.end - field.start);
        if (field.id === 0x23e383) frameNs = uint(head, field.start, field.end - field.start);
      }
      if (type === 1) return frameNs ? Math.round((1e9 / frameNs) * 1000) / 1000 : undefined;
    }
    return undefined;
  }
  return undefined;
}

const tracksId = [0x16, 0x54, 0xae, 0x6b];

function find(b: Uint8Array, id: number[], from: number): number | undefined {
  outer: for (let o = from; o + id.length <= b.length; o++) {
    for (let i = 0; i < id.length; i++) if (b[o + i] !== id[i]) continue outer;
    return o;
  }
  return undefined;
}

function* children(b: Uint8Array, start: number, end: number): Generator<{ id: number; start: number; end: number }> {
  for (let o = start; o < end;) {
    const id = vint(b, o, true);
    const size = id && vint(b, o + id.length);
    if (!id || !size || size.unknown) return;
    const data = o + id.length + size.length;
    yield { id: id.value, start: data, end: Math.min(data + size.value, end) };
    o = data + size.value;
  }
}
