/**
 * The previews' one door: every write, read and delete of generated previews (thumbnails, storyboard sprites
 * and their WebVTT tracks, waveform data) in the thumbnails bucket goes through here, named by preview-keys.ts.
 * Nothing else in the Worker touches the bucket binding (test/unit/state-and-bucket-doors.test.ts) or imports
 * the key module (.dependency-cruiser.cjs), so where a preview lives and under which name is decided once.
 */
import { storyboardVtt } from "../../shared/media/storyboard-plan.ts";
import type { AudioWaveform, Storyboard } from "../../shared/shapes/media-data.ts";
import type { RunnerResponse, RunnerStoryboard } from "../../shared/shapes/runner.ts";
import { base64ToBytes } from "../encoding/base64.ts";
import {
  isOfRevision, objectKeyForFile, previewPrefixes, storyboardSpriteKey, storyboardVttKey, storyboardVttPath, thumbnailObjectKey,
  thumbnailPath, vttKeyForFile, waveformDataKey, waveformDataPath, waveformKeyForFile,
} from "./preview-keys.ts";
import type { z } from "zod";

export { previewRevision, revisionLength, thumbnailPath } from "./preview-keys.ts";

/** What the door needs of the Worker's environment: the bucket, and only here. */
export type PreviewEnv = Pick<Env, "THUMBNAILS">;

/** A thumbnail as an engine made it (the edge's photon or the runner's, decoded from base64). */
export interface ThumbnailImage {
  bytes: Uint8Array;
  contentType: string;
  width: number;
  height: number;
}

/** Stores a thumbnail under its resource, revision and size; returns the record's `thumbnail` (served path and size). */
export async function storeThumbnail(env: PreviewEnv, resourceKey: string, revision: string, image: ThumbnailImage): Promise<{ url: string; dimensions: string }> {
  const key = thumbnailObjectKey(resourceKey, revision, image.width, image.height);
  await env.THUMBNAILS.put(key, image.bytes, { httpMetadata: { contentType: image.contentType } });
  return { url: thumbnailPath(key), dimensions: `${image.width}x${image.height}` };
}

/**
 * Stores a runner's storyboard: the sprite beside the thumbnails (served by GET /api/v1/thumbnails/{file})
 * and its WebVTT thumbnails track (GET /api/v1/storyboards/{file}), written here from the grid so the track
 * always matches the sprite it points into.
 */
async function storeStoryboard(env: PreviewEnv, resourceKey: string, revision: string, board: RunnerStoryboard): Promise<z.infer<typeof Storyboard>> {
  const { base64, contentType, ...grid } = board;
  const spriteKey = storyboardSpriteKey(resourceKey, revision, grid.tileWidth, grid.tileHeight);
  const vttKey = storyboardVttKey(resourceKey, revision, grid.tileWidth, grid.tileHeight);
  const url = thumbnailPath(spriteKey);
  await env.THUMBNAILS.put(spriteKey, base64ToBytes(base64), { httpMetadata: { contentType } });
  await env.THUMBNAILS.put(vttKey, storyboardVtt(grid, url), { httpMetadata: { contentType: "text/vtt; charset=utf-8" } });
  return { url, vtt: storyboardVttPath(vttKey), ...grid };
}

/** Stores a waveform's audiowaveform JSON (GET /api/v1/waveforms/{file}); returns the path it is served at. */
async function storeWaveformData(env: PreviewEnv, resourceKey: string, revision: string, data: AudioWaveform): Promise<string> {
  const key = waveformDataKey(resourceKey, revision, data.channels, data.length);
  await env.THUMBNAILS.put(key, JSON.stringify(data), { httpMetadata: { contentType: "application/json" } });
  return waveformDataPath(key);
}

/** A runner's answer with its generated files stored: each file's served URL (and the storyboard's grid) in place of its bytes. */
export type StoredRunnerResponse = Omit<RunnerResponse, "thumbnail" | "storyboard" | "audiowaveform"> & {
  thumbnail?: { url: string; dimensions: string };
  storedStoryboard?: z.infer<typeof Storyboard>;
};

/**
 * Stores every file a runner answer carries (storyboard sprite and track, waveform data, thumbnail) under the
 * resource's key and revision; the rest of the answer passes through. A new runner preview is stored here.
 */
export async function storeRunnerPreviews(env: PreviewEnv, resourceKey: string, revision: string, response: RunnerResponse): Promise<StoredRunnerResponse> {
  const { thumbnail, storyboard, audiowaveform, ...produced } = response;
  const stored = storyboard ? { storedStoryboard: await storeStoryboard(env, resourceKey, revision, storyboard) } : {};
  const rest = produced.waveform && audiowaveform
    ? { ...produced, waveform: { ...produced.waveform, url: await storeWaveformData(env, resourceKey, revision, audiowaveform) } }
    : produced;
  if (!thumbnail) return { ...rest, ...stored };
  const { base64, ...image } = thumbnail;
  return { ...rest, ...stored, thumbnail: await storeThumbnail(env, resourceKey, revision, { ...image, bytes: base64ToBytes(base64) }) };
}

/** The three served kinds, each with the file-name check of its route. */
const keyForFile = { thumbnail: objectKeyForFile, storyboard: vttKeyForFile, waveform: waveformKeyForFile } as const;
export type PreviewKind = keyof typeof keyForFile;

/**
 * A stored preview by the file name of its route (`thumbnail`: a thumbnail or storyboard sprite, `storyboard`:
 * a WebVTT track, `waveform`: audiowaveform JSON); null when the name does not parse or nothing is stored.
 */
export async function readPreview(env: PreviewEnv, kind: PreviewKind, file: string): Promise<R2ObjectBody | null> {
  const key = keyForFile[kind](file);
  return key ? await env.THUMBNAILS.get(key) : null;
}

/** Preview objects of one resource listed per prefix and call: one per size and revision, a handful at most. */
const maxThumbnailsPerResource = 100;

/**
 * Deletes a resource's generated previews (thumbnails, storyboard sprites and tracks, waveforms) except those of
 * `keepRevision`: its file changed, and the old previews describe the old file. Their URLs then answer 404,
 * while the new revision's files have new URLs (preview-keys.ts).
 */
export async function deletePreviewsOf(env: PreviewEnv, resourceKey: string, keepRevision?: string): Promise<void> {
  for (const prefix of previewPrefixes(resourceKey)) {
    const listed = await env.THUMBNAILS.list({ prefix, limit: maxThumbnailsPerResource });
    const stale = listed.objects.map((o) => o.key).filter((key) => keepRevision === undefined || !isOfRevision(key, resourceKey, keepRevision));
    if (stale.length > 0) await env.THUMBNAILS.delete(stale);
  }
}
