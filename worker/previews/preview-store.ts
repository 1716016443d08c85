/**
 * Stores a runner's storyboard: the sprite beside the thumbnails (served by GET /api/v1/thumbnails/{file})
 * and its WebVTT thumbnails track (GET /api/v1/storyboards/{file}), written here from the grid so the track
 * always matches the sprite it points into.
 */
import { storyboardVtt } from "../../shared/media/storyboard-plan.ts";
import type { AudioWaveform, Storyboard } from "../../shared/shapes/media-data.ts";
import type { RunnerStoryboard } from "../../shared/shapes/runner.ts";
import { base64ToBytes } from "../encoding/base64.ts";
import {
  storyboardSpriteKey, storyboardVttKey, storyboardVttPath, thumbnailPath, waveformDataKey, waveformDataPath,
} from "./preview-keys.ts";
import type { z } from "zod";

export async function storeStoryboard(bucket: R2Bucket, resourceKey: string, revision: string, board: RunnerStoryboard): Promise<z.infer<typeof Storyboard>> {
  const { base64, contentType, ...grid } = board;
  const spriteKey = storyboardSpriteKey(resourceKey, revision, grid.tileWidth, grid.tileHeight);
  const vttKey = storyboardVttKey(resourceKey, revision, grid.tileWidth, grid.tileHeight);
  const url = thumbnailPath(spriteKey);
  await bucket.put(spriteKey, base64ToBytes(base64), { httpMetadata: { contentType } });
  await bucket.put(vttKey, storyboardVtt(grid, url), { httpMetadata: { contentType: "text/vtt; charset=utf-8" } });
  return { url, vtt: storyboardVttPath(vttKey), ...grid };
}

/** Stores a waveform's audiowaveform JSON (GET /api/v1/waveforms/{file}); returns the path it is served at. */
export async function storeWaveformData(bucket: R2Bucket, resourceKey: string, revision: string, data: AudioWaveform): Promise<string> {
  const key = waveformDataKey(resourceKey, revision, data.channels, data.length);
  await bucket.put(key, JSON.stringify(data), { httpMetadata: { contentType: "application/json" } });
  return waveformDataPath(key);
}
