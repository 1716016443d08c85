/**
 * A storyboard sprite: evenly spaced keyframes, each one ffmpeg run seeking to its time with `-ss` before
 * `-i` (keyframe-before, frame.ts), so the demuxer reads the index and then only each keyframe's bytes by
 * Range through the proxy. One ffmpeg reading the whole file through a keyframe `select` filter would pull
 * the entire file (test/runner/storyboard.test.ts measures both). Tiles are composed into one WebP by sharp.
 */
import sharp from "sharp";
import { storyboardPlan, storyboardTileHeight, storyboardTileWidth } from "../../../shared/media/storyboard-plan.ts";
import type { RunnerStoryboard } from "../../../shared/shapes/runner.ts";
import { RunnerError } from "../errors.ts";
import { extractFrame, type FrameOptions } from "./frame.ts";

/** ffmpeg runs at a time: the decoders' threads (engineThreads each) already fill the runner's share of cores. */
export const storyboardConcurrency = 2;
const spriteWebpQuality = 70;

export interface StoryboardInput {
  durationSeconds: number;
  /** Displayed size of the picture (after rotation), for the tiles' aspect. */
  width: number;
  height: number;
}

export type StoryboardFrameOptions = Omit<FrameOptions, "mode" | "maxPx">;

/** Frame times of the plan: tile i shows the keyframe at or before i x interval (clamped inside the file). */
export function tileTimes(durationSeconds: number, interval: number, tiles: number): number[] {
  const last = Math.max(0, durationSeconds - 0.1);
  return Array.from({ length: tiles }, (_, i) => Math.min(i * interval, last));
}

export async function buildStoryboard(input: string, video: StoryboardInput, options: StoryboardFrameOptions): Promise<RunnerStoryboard> {
  if (!(video.durationSeconds > 0)) throw new RunnerError("UNSUPPORTED_MEDIA", "a storyboard needs the video's duration");
  const plan = storyboardPlan(video.durationSeconds);
  const tileWidth = storyboardTileWidth;
  const tileHeight = video.width > 0 && video.height > 0 ? storyboardTileHeight(video.width, video.height) : Math.round((tileWidth * 9) / 16);
  const times = tileTimes(video.durationSeconds, plan.interval, plan.tiles);
  const frameOptions: FrameOptions = { ...options, mode: "keyframe-before", maxPx: Math.max(tileWidth, tileHeight) };
  const tiles: Array<Buffer | undefined> = new Array(times.length);
  let next = 0;
  const worker = async () => {
    while (next < times.length) {
      const index = next++;
      const png = await extractFrame(input, times[index]!, frameOptions);
      tiles[index] = png ? await sharp(png).resize(tileWidth, tileHeight, { fit: "contain", background: "#000" }).removeAlpha().raw().toBuffer() : undefined;
    }
  };
  await Promise.all(Array.from({ length: Math.min(storyboardConcurrency, times.length) }, worker));
  if (tiles.every((tile) => tile === undefined)) throw new RunnerError("CORRUPT_MEDIA", "no video frame could be decoded for the storyboard");
  const rows = Math.ceil(plan.tiles / plan.columns);
  const sprite = await sharp({ create: { width: plan.columns * tileWidth, height: rows * tileHeight, channels: 3, background: "#000" } })
    .composite(tiles.flatMap((tile, i) => tile
      ? [{ input: tile, raw: { width: tileWidth, height: tileHeight, channels: 3 as const }, left: (i % plan.columns) * tileWidth, top: Math.floor(i / plan.columns) * tileHeight }]
      : []))
    .webp({ quality: spriteWebpQuality })
    .toBuffer();
  return { base64: sprite.toString("base64"), contentType: "image/webp", tiles: plan.tiles, columns: plan.columns, tileWidth, tileHeight, interval: plan.interval };
}
