import type { Context } from "hono";
import { vttKeyForFile } from "../enrich/thumbnail-store.ts";
import type { AppEnv } from "./app-env.ts";
import { errorResponse } from "./error-handling.ts";
import { etagMatches } from "./thumbnail-handler.ts";

/** Named by resource and tile size like the sprite it points into: cacheable for a year. */
const cacheControl = "public, max-age=31536000, immutable";

/** GET /api/v1/storyboards/{file}: a storyboard's WebVTT thumbnails track from R2, with ETag; 304 when current. */
export async function serveStoryboardVtt(c: Context<AppEnv>, file: string): Promise<Response> {
  const key = vttKeyForFile(file);
  const object = key ? await c.env.THUMBNAILS.get(key) : null;
  if (!object) return errorResponse(c, 404, "NOT_FOUND", "No such storyboard.");
  const headers = { etag: object.httpEtag, "cache-control": cacheControl };
  if (etagMatches(c.req.header("if-none-match"), object.httpEtag)) {
    await object.body.cancel();
    return c.body(null, 304, headers);
  }
  return c.body(object.body, 200, { ...headers, "content-type": "text/vtt; charset=utf-8" });
}
