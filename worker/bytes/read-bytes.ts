/** Bounds-checked big/little-endian readers over untrusted bytes: out of range reads return undefined. */
export function u16be(b: Uint8Array, o: number): number | undefined {
  return o >= 0 && o + 2 <= b.length ? (b[o]! << 8) | b[o + 1]! : undefined;
}

export function u32be(b: Uint8Array, o: number): number | undefined {
  return o >= 0 && o + 4 <= b.length ? ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0 : undefined;
}

export function u32le(b: Uint8Array, o: number): number | undefined {
  return o >= 0 && o + 4 <= b.length ? ((b[o + 3]! << 24) | (b[o + 2]! << 16) | (b[o + 1]! << 8) | b[o]!) >>> 0 : undefined;
}

/** Latin-1 text of `length` bytes at `o` (chunk/box tags, signatures); "" when out of range. */
export function ascii(b: Uint8Array, o: number, length: number): string {
  if (o < 0 || o + length > b.length) return "";
  let s = "";
  for (let i = o; i < o + length; i++) s += String.fromCharCode(b[i]!);
  return s;
}
