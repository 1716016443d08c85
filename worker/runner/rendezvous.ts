/**
 * Rendezvous (highest random weight) hashing: every key ranks every target, and the key goes to the target it
 * ranks highest. Adding a target moves only the keys that now rank it first. Pure, so tests can ask which
 * runner a URL's key goes to.
 */

/** FNV-1a, 32 bits: cheap, stable across isolates, good enough to spread keys. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The weight `key` gives target `id`: the higher, the earlier it is tried. */
export function rendezvousWeight(key: string, id: string): number {
  return hash32(`${key}\u0000${id}`);
}

/** Target ids in the order `key` tries them, highest weight first. */
export function rendezvousOrder(ids: readonly string[], key: string): string[] {
  return [...ids].sort((a, b) => rendezvousWeight(key, b) - rendezvousWeight(key, a));
}
