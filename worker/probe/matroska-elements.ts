import { vint } from "./tail-duration.ts";

/** One EBML element inside a buffer already read: its ID and the bounds of its data. */
export interface Element { id: number; start: number; end: number }

/**
 * Child elements between start and end (linear: each one advances past its own size). An unknown size (live
 * streams) extends to the parent's end and ends the walk; it stops at the first bad header.
 */
export function* children(b: Uint8Array, start: number, end: number): Generator<Element> {
  for (let o = start; o < end;) {
    const id = vint(b, o, true);
    const size = id && vint(b, o + id.length);
    if (!id || !size) return;
    const data = o + id.length + size.length;
    const stop = size.unknown ? end : Math.min(data + size.value, end);
    yield { id: id.value, start: data, end: stop };
    if (size.unknown) return;
    o = data + size.value;
  }
}
