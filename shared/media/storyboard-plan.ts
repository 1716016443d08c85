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

/** Evenly spaced tiles over the duration: at most storyboardMaxTiles, at least one second apart. */
export function storyboardPlan(durationSeconds: number): StoryboardPlan {
  const wanted = durationSeconds / storyboardMaxTiles;
  const interval = intervalSteps.find((step) => step >= wanted) ?? Math.ceil(wanted / 3600) * 3600;
  const tiles = Math.max(1, Math.min(storyboardMaxTiles, Math.ceil(durationSeconds / interval)));
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
}

/** One tile of the sprite and the time it stands for (seconds), as the thumbnails track's cues say it. */
export interface StoryboardCue {
  start: number;
  end: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One cue per tile, each `interval` long: tiles left to right, top to bottom. */
export function storyboardCues(grid: StoryboardGrid): StoryboardCue[] {
  const cues: StoryboardCue[] = [];
  for (let i = 0; i < grid.tiles; i++) {
    const x = (i % grid.columns) * grid.tileWidth;
    const y = Math.floor(i / grid.columns) * grid.tileHeight;
    cues.push({ start: i * grid.interval, end: (i + 1) * grid.interval, x, y, width: grid.tileWidth, height: grid.tileHeight });
  }
  return cues;
}

/** The thumbnails track: one cue per tile, each `interval` long, pointing at the tile with a #xywh= fragment. */
export function storyboardVtt(grid: StoryboardGrid, spriteUrl: string): string {
  const lines = ["WEBVTT", ""];
  for (const cue of storyboardCues(grid)) {
    lines.push(`${vttTime(cue.start)} --> ${vttTime(cue.end)}`);
    lines.push(`${spriteUrl}#xywh=${cue.x},${cue.y},${cue.width},${cue.height}`, "");
  }
  return lines.join("\n");
}
