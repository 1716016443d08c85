/**
 * Dominant colour by histogram mode: pixels are quantised to 4 bits per channel (4096 bins), the most
 * populated bin wins and its members' mean is returned. Unlike the mean of all pixels, this picks a
 * colour that actually covers the largest share of the image (a red logo on white gives white, not pink).
 * Fully transparent pixels carry no colour and are skipped.
 */
export function dominantColor(rgba: ArrayLike<number>, width: number, height: number): string {
  const pixels = Math.min(width * height, Math.floor(rgba.length / 4));
  const counts = new Uint32Array(4096);
  const sums = new Float64Array(4096 * 3);
  for (let i = 0; i < pixels; i++) {
    const o = i * 4;
    if ((rgba[o + 3] ?? 255) < 16) continue;
    const r = rgba[o] ?? 0, g = rgba[o + 1] ?? 0, b = rgba[o + 2] ?? 0;
    const bin = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
    counts[bin]! += 1;
    sums[bin * 3]! += r;
    sums[bin * 3 + 1]! += g;
    sums[bin * 3 + 2]! += b;
  }
  let best = -1;
  let bestCount = 0;
  for (let bin = 0; bin < counts.length; bin++) {
    if (counts[bin]! > bestCount) { bestCount = counts[bin]!; best = bin; }
  }
  if (best < 0) return "#000000";
  const channel = (k: number) => Math.round(sums[best * 3 + k]! / bestCount);
  return toHex(channel(0), channel(1), channel(2));
}

export function toHex(r: number, g: number, b: number): string {
  return "#" + [r, g, b].map((v) => Math.max(0, Math.min(255, v)).toString(16).padStart(2, "0")).join("");
}
