import { ascii, u32be } from "../bytes/read-bytes.ts";

/** One ISO BMFF box inside a buffer already read: its type and the bounds of its body. */
export interface Box { type: string; start: number; end: number }

/**
 * Boxes between start and end of a buffer already read; stops at the first malformed header. Each box is at
 * least 8 bytes and a child never reaches past its parent, so a walk is linear in the bytes it covers.
 */
export function* boxes(b: Uint8Array, start: number, end: number): Generator<Box> {
  let o = start;
  while (o + 8 <= end) {
    let size = u32be(b, o) ?? 0;
    let header = 8;
    if (size === 1) { size = (u32be(b, o + 8) ?? 0) * 2 ** 32 + (u32be(b, o + 12) ?? 0); header = 16; }
    else if (size === 0) size = end - o;
    if (size < header) return;
    yield { type: ascii(b, o + 4, 4), start: o + header, end: Math.min(o + size, end) };
    o += size;
  }
}

/** The first child of `parent` of this type. */
export function child(b: Uint8Array, parent: Box, type: string): Box | undefined {
  for (const box of boxes(b, parent.start, parent.end)) if (box.type === type) return box;
  return undefined;
}

/** The box at the end of a path of types below `parent` (each step the first child of that type). */
export function path(b: Uint8Array, parent: Box, ...types: string[]): Box | undefined {
  let box: Box | undefined = parent;
  for (const type of types) box = box && child(b, box, type);
  return box;
}
