import type { Context } from "hono";
import { vttKeyForFile, waveformKeyForFile } from "../enrich/thumbnail-store.ts";
import type { AppEnv } from "./app-env.ts";
import { serveStoredFile } from "./thumbnail-handler.ts";

/** GET /api/v1/storyboards/{file}: a storyboard's WebVTT thumbnails track from R2 (named like the sprite it points into). */
export function serveStoryboardVtt(c: Context<AppEnv>, file: string): Promise<Response> {
  return serveStoredFile(c, vttKeyForFile(file), "text/vtt; charset=utf-8", "No such storyboard.");
}

/** GET /api/v1/waveforms/{file}: a waveform's BBC audiowaveform JSON from R2. */
export function serveWaveformData(c: Context<AppEnv>, file: string): Promise<Response> {
  return serveStoredFile(c, waveformKeyForFile(file), "application/json", "No such waveform.");
}
