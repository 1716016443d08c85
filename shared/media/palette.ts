/**
 * Colour palette of an RGBA raster: up to `maxColors` colours with the share of the pixels each covers,
 * largest first. One pure function used by the edge (photon pixels) and the media runner (sharp raw
 * pixels), so both give the same palette for the same pixels.
 *
 * Method (deterministic, no randomness):
 * 1. Histogram at 5 bits per channel (32768 bins), each bin keeping its pixels' sum, so colours are
 *    means of real pixels, not bin centres. Fully transparent pixels carry no colour and are skipped.
 * 2. Median cut over the bins: the box with the largest squared error is split at the pixel-weighted
 *    median of its widest channel, until there are 2x maxColors boxes (or nothing left to split).
 * 3. A few rounds of k-means (Lloyd) over the bins, seeded with the box means, move the centres to the
 *    colour clusters (median cut alone cuts through clusters).
 * 4. Clusters closer than `mergeDistance` are merged (a flat image is one colour, not six near-equal ones);
 *    clusters under `minShare` are dropped; the rest are ordered by share (ties by hex).
 * Cost is linear in pixels plus a small constant; callers downscale to about 64x64 first.
 */

export interface PaletteColor {
  /** "#rrggbb": mean of the cluster's pixels. */
  hex: string;
  /** Fraction (0-1) of the opaque pixels in this cluster, 4 decimals. */
  share: number;
}

export interface Palette {
  /** The largest cluster's colour, always colors[0].hex when there are colours ("#000000" when none). */
  dominant: string;
  colors: PaletteColor[];
}

export const paletteMaxColors = 6;
/** Euclidean RGB distance under which two clusters count as one colour. */
const mergeDistance = 24;
/** Clusters covering less than this share of the pixels are noise (edges, antialiasing), not palette. */
const minShare = 0.01;
/** Lloyd rounds: the median-cut seeds are already close, so a few rounds settle it. */
const kmeansRounds = 8;
/** Alpha under which a pixel counts as transparent. */
const alphaMin = 16;

interface Bin {
  count: number;
  r: number;
  g: number;
  b: number;
}

interface Cluster {
  count: number;
  sr: number;
  sg: number;
  sb: number;
}

export function quantizePalette(rgba: ArrayLike<number>, width: number, height: number, maxColors = paletteMaxColors): Palette {
  const bins = histogram(rgba, width, height);
  const total = bins.reduce((n, bin) => n + bin.count, 0);
  if (total === 0 || maxColors < 1) return { dominant: "#000000", colors: [] };

  const boxes = medianCut(bins, maxColors * 2);
  let centres = boxes.map(meanOf);
  centres = kmeans(bins, centres);
  let clusters = assign(bins, centres);
  clusters = mergeClose(clusters);

  const ordered = clusters
    .filter((c) => c.count > 0)
    .map((c) => ({ hex: toHex(Math.round(c.sr / c.count), Math.round(c.sg / c.count), Math.round(c.sb / c.count)), count: c.count }))
    .sort((a, b) => b.count - a.count || (a.hex < b.hex ? -1 : a.hex > b.hex ? 1 : 0));
  const kept = ordered.filter((c, i) => i === 0 || c.count / total >= minShare).slice(0, maxColors);
  const colors = kept.map((c) => ({ hex: c.hex, share: Math.round((c.count / total) * 10_000) / 10_000 }));
  return { dominant: colors[0]!.hex, colors };
}

function histogram(rgba: ArrayLike<number>, width: number, height: number): Bin[] {
  const pixels = Math.min(width * height, Math.floor(rgba.length / 4));
  const counts = new Uint32Array(32768);
  const sums = new Float64Array(32768 * 3);
  for (let i = 0; i < pixels; i++) {
    const o = i * 4;
    if ((rgba[o + 3] ?? 255) < alphaMin) continue;
    const r = rgba[o] ?? 0, g = rgba[o + 1] ?? 0, b = rgba[o + 2] ?? 0;
    const bin = ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);
    counts[bin]! += 1;
    sums[bin * 3]! += r;
    sums[bin * 3 + 1]! += g;
    sums[bin * 3 + 2]! += b;
  }
  const bins: Bin[] = [];
  for (let bin = 0; bin < counts.length; bin++) {
    const count = counts[bin]!;
    if (count > 0) bins.push({ count, r: sums[bin * 3]! / count, g: sums[bin * 3 + 1]! / count, b: sums[bin * 3 + 2]! / count });
  }
  return bins;
}

type Channel = "r" | "g" | "b";
const channels: Channel[] = ["r", "g", "b"];

function meanOf(box: Bin[]): [number, number, number] {
  let n = 0, r = 0, g = 0, b = 0;
  for (const bin of box) {
    n += bin.count;
    r += bin.r * bin.count;
    g += bin.g * bin.count;
    b += bin.b * bin.count;
  }
  return [r / n, g / n, b / n];
}

/** Pixel-weighted squared error of a box around its mean, and the channel with the largest spread. */
function spread(box: Bin[]): { error: number; channel: Channel } {
  const mean = meanOf(box);
  const perChannel = [0, 0, 0];
  for (const bin of box) {
    for (let k = 0; k < 3; k++) perChannel[k]! += bin.count * (bin[channels[k]!] - mean[k]!) ** 2;
  }
  const widest = perChannel.indexOf(Math.max(...perChannel));
  return { error: perChannel[0]! + perChannel[1]! + perChannel[2]!, channel: channels[widest]! };
}

interface Box {
  bins: Bin[];
  error: number;
  channel: Channel;
}

const boxOf = (bins: Bin[]): Box => ({ bins, ...spread(bins) });

function medianCut(bins: Bin[], target: number): Bin[][] {
  // Each box's spread is computed once, when the box is made.
  const boxes: Box[] = [boxOf(bins)];
  while (boxes.length < target) {
    let pick = -1;
    let pickError = 0;
    for (let i = 0; i < boxes.length; i++) {
      const box = boxes[i]!;
      if (box.bins.length >= 2 && box.error > pickError) { pickError = box.error; pick = i; }
    }
    if (pick < 0) break;
    const { bins: box, channel } = boxes[pick]!;
    const sorted = [...box].sort((a, b) => a[channel] - b[channel]);
    const half = sorted.reduce((n, bin) => n + bin.count, 0) / 2;
    let cut = 0;
    for (let acc = 0; cut < sorted.length - 1; cut++) {
      acc += sorted[cut]!.count;
      if (acc >= half) break;
    }
    // Both halves keep at least one bin.
    const at = Math.min(Math.max(cut + 1, 1), sorted.length - 1);
    boxes.splice(pick, 1, boxOf(sorted.slice(0, at)), boxOf(sorted.slice(at)));
  }
  return boxes.map((box) => box.bins);
}

function nearest(bin: Bin, centres: [number, number, number][]): number {
  let best = 0;
  let bestD = Infinity;
  for (let i = 0; i < centres.length; i++) {
    const c = centres[i]!;
    const d = (bin.r - c[0]) ** 2 + (bin.g - c[1]) ** 2 + (bin.b - c[2]) ** 2;
    if (d < bestD) { bestD = d; best = i; }
  }
  return best;
}

function assign(bins: Bin[], centres: [number, number, number][]): Cluster[] {
  const clusters: Cluster[] = centres.map(() => ({ count: 0, sr: 0, sg: 0, sb: 0 }));
  for (const bin of bins) {
    const c = clusters[nearest(bin, centres)]!;
    c.count += bin.count;
    c.sr += bin.r * bin.count;
    c.sg += bin.g * bin.count;
    c.sb += bin.b * bin.count;
  }
  return clusters;
}

function kmeans(bins: Bin[], seeds: [number, number, number][]): [number, number, number][] {
  let centres = seeds;
  for (let round = 0; round < kmeansRounds; round++) {
    const next = assign(bins, centres)
      .filter((c) => c.count > 0)
      .map((c): [number, number, number] => [c.sr / c.count, c.sg / c.count, c.sb / c.count]);
    const moved = next.length !== centres.length || next.some((c, i) => c.some((v, k) => Math.abs(v - centres[i]![k]!) > 0.5));
    centres = next;
    if (!moved) break;
  }
  return centres;
}

/** Repeatedly merges the closest pair of clusters while it is under mergeDistance. */
function mergeClose(clusters: Cluster[]): Cluster[] {
  const out = clusters.filter((c) => c.count > 0).map((c) => ({ ...c }));
  for (;;) {
    let pair: [number, number] | undefined;
    let pairD = mergeDistance ** 2;
    for (let i = 0; i < out.length; i++) {
      for (let j = i + 1; j < out.length; j++) {
        const a = out[i]!, b = out[j]!;
        const d = (a.sr / a.count - b.sr / b.count) ** 2 + (a.sg / a.count - b.sg / b.count) ** 2 + (a.sb / a.count - b.sb / b.count) ** 2;
        if (d < pairD) { pairD = d; pair = [i, j]; }
      }
    }
    if (!pair) return out;
    const [i, j] = pair;
    const a = out[i]!, b = out[j]!;
    out[i] = { count: a.count + b.count, sr: a.sr + b.sr, sg: a.sg + b.sg, sb: a.sb + b.sb };
    out.splice(j, 1);
  }
}

export function toHex(r: number, g: number, b: number): string {
  return "#" + [r, g, b].map((v) => Math.max(0, Math.min(255, v)).toString(16).padStart(2, "0")).join("");
}
