/**
 * The frame each storyboard tile shows, from an MP4/MOV video track's sample tables: for a tile at time t, the
 * first frame whose presentation time is at or after t (what `ffmpeg -ss t -i file -frames:v 1` gives), and the
 * samples a decoder needs for it: from the keyframe at or before that frame, in decode order, up to the frame.
 * Tiles that share a keyframe share one run of samples, so a clip with one keyframe is decoded once, forwards.
 *
 * The decoder outputs each run's pictures in presentation order (every run starts at a sync sample, which lets
 * no earlier picture out after it), so a tile's picture is found by counting: the pictures of the runs before
 * it, plus the samples of its run presented before it.
 *
 * Bounded: the samples walked and the samples to decode are capped by maxFrames (the caller's decode budget);
 * past it the answer is "too-many" and the caller shows keyframes instead, with cues that say so.
 */
import {
  Mp4IndexError, openSampleTables, presentationClock, sampleRanges, syncSample, type KeyframeCodec,
} from "./mp4-keyframes.ts";

/**
 * Samples after a candidate frame, in decode order, that may still be presented before it: the most pictures a
 * decoder may hold for reordering (H.264 and HEVC: 16).
 */
const reorderWindow = 16;

export interface RunSample {
  sample: number;
  offset: number;
  size: number;
  /** A sync sample: the decoder may start here (its parameter sets go before it). */
  sync: boolean;
}

export interface TileFrames {
  codec: KeyframeCodec;
  config: Buffer;
  /** Every sample to decode, in decode order, run after run. */
  samples: RunSample[];
  /** For each asked time, the index of its picture among all decoded pictures (in output order). */
  output: number[];
  /** For each asked time, the presentation time (seconds) of the picture shown. */
  frameTimes: number[];
}

/** Undefined: not an H.264/HEVC track in sample tables; "too-many": more than maxFrames samples to walk or decode. */
export function selectTileFrames(moovBytes: Buffer, times: readonly number[], fileSize: number | undefined, maxFrames: number):
  TileFrames | "too-many" | undefined {
  const tables = openSampleTables(moovBytes);
  if (!tables) return undefined;
  const { sampleCount, syncCount } = tables;

  // Pass 1: the sync samples and their times (one forward pass over the tables).
  const syncClock = presentationClock(tables);
  const syncs: number[] = [];
  const syncTimes: number[] = [];
  for (let k = 0; k < syncCount; k++) {
    const sample = syncSample(tables, k);
    if (sample <= (syncs.at(-1) ?? 0) || sample > sampleCount) throw new Mp4IndexError("stss out of order or past the samples");
    syncs.push(sample);
    syncTimes.push(syncClock(sample));
  }

  // Each time's GOP: the last sync sample presented at or before it (the first one for times before it).
  const gopOf = times.map((t) => {
    let lo = 0;
    let hi = syncs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (syncTimes[mid]! <= t) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  });

  // Pass 2: walk each GOP that holds a time, forwards, until every time in it has its frame settled.
  const clock = presentationClock(tables);
  const ptsOf = new Map<number, number>();
  const target: number[] = new Array(times.length).fill(0);
  let walked = 0;
  for (let j = 0; j < times.length;) {
    const gop = gopOf[j]!;
    let end = j;
    while (end < times.length && gopOf[end] === gop) end++;
    const first = syncs[gop]!;
    const last = gop + 1 < syncs.length ? syncs[gop + 1]! - 1 : sampleCount;
    const best = new Array<number>(end - j).fill(0);
    let latest = { sample: first, pts: -Infinity };
    for (let s = first; s <= last; s++) {
      if (++walked > maxFrames + reorderWindow * times.length) return "too-many";
      const pts = clock(s);
      ptsOf.set(s, pts);
      if (pts > latest.pts) latest = { sample: s, pts };
      let open = false;
      for (let i = j; i < end; i++) {
        const b = best[i - j]!;
        if (pts >= times[i]! && (b === 0 || pts < ptsOf.get(b)!)) best[i - j] = s;
        if (best[i - j] === 0 || s < best[i - j]! + reorderWindow) open = true;
      }
      if (!open) break;
    }
    for (let i = j; i < end; i++) {
      const b = best[i - j]!;
      if (b !== 0) target[i] = b;
      // Nothing in this GOP is presented at or after the time: the next keyframe is the first frame that is,
      // else (past the track's end) the last frame presented.
      else if (gop + 1 < syncs.length) {
        target[i] = syncs[gop + 1]!;
        ptsOf.set(syncs[gop + 1]!, syncTimes[gop + 1]!);
      } else target[i] = latest.sample;
    }
    j = end;
  }

  // Runs: one per GOP holding a target, from its sync sample to its last target in decode order.
  const runEnd = new Map<number, number>();
  const gopStart = (sample: number) => {
    let lo = 0;
    let hi = syncs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (syncs[mid]! <= sample) lo = mid;
      else hi = mid - 1;
    }
    return syncs[lo]!;
  };
  for (const sample of target) {
    const start = gopStart(sample);
    runEnd.set(start, Math.max(runEnd.get(start) ?? start, sample));
  }
  const starts = [...runEnd.keys()].sort((a, b) => a - b);
  let total = 0;
  for (const start of starts) total += runEnd.get(start)! - start + 1;
  if (total > maxFrames) return "too-many";

  // Output order: runs in order, each run's pictures by presentation time.
  const outputOf = new Map<number, number>();
  const numbers: number[] = [];
  const syncSet = new Set(syncs);
  for (const start of starts) {
    const run: number[] = [];
    for (let s = start; s <= runEnd.get(start)!; s++) run.push(s);
    const base = numbers.length;
    const byTime = run.map((s) => ({ s, pts: ptsOf.get(s) ?? clockMissing(s) })).sort((a, b) => a.pts - b.pts || a.s - b.s);
    byTime.forEach(({ s }, rank) => outputOf.set(s, base + rank));
    numbers.push(...run);
  }
  const ranges = sampleRanges(tables, numbers, fileSize);
  return {
    codec: tables.track.codec,
    config: tables.track.config,
    samples: numbers.map((sample, i) => ({ sample, ...ranges[i]!, sync: syncSet.has(sample) })),
    output: target.map((s) => outputOf.get(s)!),
    frameTimes: target.map((s) => ptsOf.get(s)!),
  };
}

/** Every sample of a run was walked (runs end at a target, targets come from the walk): a gap is a bug in the tables' reading. */
function clockMissing(sample: number): never {
  throw new Mp4IndexError(`sample ${sample} was not timed`);
}
