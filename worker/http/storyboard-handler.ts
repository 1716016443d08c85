import type { Context } from "hono";
import { readPreview } from "../previews/preview-store.ts";
import type { AppEnv } from "./app-env.ts";
import { serveStoredFile } from "./thumbnail-handler.ts";

/** GET /api/v1/storyboards/{file}: a storyboard's WebVTT thumbnails track from R2 (named like the sprite it points into). */
export async function serveStoryboardVtt(c: Context<AppEnv>, file: string): Promise<Response> {
  return serveStoredFile(c, await readPreview(c.env, "storyboard", file), "text/vtt; charset=utf-8", "No such storyboard.");
}

