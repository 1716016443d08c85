/** Where `needle` first stands in `b` at or after `from`, or -1. Needles are short constants, so this is linear in `b`. */
export function indexOfBytes(b: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0]!;
  for (let i = b.indexOf(first, from); i >= 0 && i + needle.length <= b.length; i = b.indexOf(first, i + 1)) {
    let k = 1;
    while (k < needle.length && b[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
}
