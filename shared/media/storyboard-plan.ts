/**
 * How a storyboard samples a video, and its WebVTT thumbnails track: pure functions shared by the runner
 * (which picks the frames) and the Worker (which writes the track next to the sprite).
 */
import { storyboardColumns, storyboardMaxTiles } from "../limits.ts";

/** Tile width in pixels; the height follows the picture's aspect. */
export const storyboardTileWidth = 160;
/** Bounds of a tile's height, so a degenerate aspect ratio cannot make a huge or empty sprite. */
export const storyboardMinTileHeight = 16;
export const storyboardMaxTileHeight = 320;

/** Seconds between tiles, from the shortest: the interval is duration / maxTiles rounded up to one of these. */
const intervalSteps = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600] as const;

export interface StoryboardPlan {
  interval: number;
  tiles: number;
  columns: number;
}

/**
 * Seconds before the end no tile starts: a 5.008 s video gets tiles at 0-4 s, not a sixth for its last 8 ms (the
 * last frame starts at least this early in any real video, so a tile there would repeat it).
 */
export const storyboardEndMarginSeconds = 0.1;

/** Evenly spaced tiles over the duration: at most storyboardMaxTiles, at least one second apart. */
export function storyboardPlan(durationSeconds: number): StoryboardPlan {
  const wanted = durationSeconds / storyboardMaxTiles;
  const interval = intervalSteps.find((step) => step >= wanted) ?? Math.ceil(wanted / 3600) * 3600;
  const tiles = Math.max(1, Math.min(storyboardMaxTiles, Math.ceil((durationSeconds - storyboardEndMarginSeconds) / interval)));
  return { interval, tiles, columns: Math.min(storyboardColumns, tiles) };
}

/** Tile height for a picture of width x height shown tileWidth wide. */
export function storyboardTileHeight(width: number, height: number): number {
  const h = Math.round((storyboardTileWidth * height) / width / 2) * 2;
  return Math.min(storyboardMaxTileHeight, Math.max(storyboardMinTileHeight, Number.isFinite(h) ? h : storyboardMinTileHeight));
}

/** hh:mm:ss.ttt, the WebVTT timestamp form. */
function vttTime(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
}

export interface StoryboardGrid {
  tiles: number;
  columns: number;
  tileWidth: number;
  tileHeight: number;
  interval: number;
  /** Seconds of the frame each tile shows (absent: i x interval). */
  frameTimes?: readonly number[] | undefined;
  /** Seconds of the video (absent: tiles x interval). */
  duration?: number | undefined;
}

/** One tile of the sprite and the time it stands for (seconds), as the thumbnails track's cues say it. */
export interface StoryboardCue {
  start: number;
  end: number;
  /** Index of the tile in the sprite, left to right, top to bottom. */
  tile: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Where each cue starts, and which tile it shows. When every tile shows the frame within half an interval of i x
 * interval, the cues are a tile apart. Otherwise (keyframes only, sparser than the tiles) each cue starts at the
 * time of the frame it shows, and tiles showing the same frame share one cue: a cue's range never claims a
 * picture it does not show.
 */
export function storyboardCues(grid: StoryboardGrid): StoryboardCue[] {
  const { frameTimes, interval } = grid;
  const end = grid.duration ?? grid.tiles * grid.interval;
  const nominal = !frameTimes || frameTimes.length !== grid.tiles || frameTimes.every((t, i) => Math.abs(t - i * interval) <= interval / 2);
  const starts: Array<{ start: number; tile: number }> = [];
  for (let i = 0; i < grid.tiles; i++) {
    if (nominal) starts.push({ start: i * interval, tile: i });
    else if (i === 0) starts.push({ start: 0, tile: 0 });
    else if (frameTimes![i]! > starts.at(-1)!.start) starts.push({ start: frameTimes![i]!, tile: i });
  }
  return starts.map(({ start, tile }, k) => {
    const next = k + 1 < starts.length ? starts[k + 1]!.start : Math.max(end, start + 0.001);
    const x = (tile % grid.columns) * grid.tileWidth;
    const y = Math.floor(tile / grid.columns) * grid.tileHeight;
    return { start, end: next, tile, x, y, width: grid.tileWidth, height: grid.tileHeight };
  });
}

/** The thumbnails track: one cue per tile (see storyboardCues), pointing at the tile with a #xywh= fragment. */
export function storyboardVtt(grid: StoryboardGrid, spriteUrl: string): string {
  const lines = ["WEBVTT", ""];
  for (const cue of storyboardCues(grid)) {
    lines.push(`${vttTime(cue.start)} --> ${vttTime(cue.end)}`);
    lines.push(`${spriteUrl}#xywh=${cue.x},${cue.y},${cue.width},${cue.height}`, "");
  }
  return lines.join("\n");
}
