import type { Context } from "hono";
import { readPreview } from "../previews/preview-store.ts";
import type { AppEnv } from "./app-env.ts";
import { errorResponse } from "./error-handling.ts";

/** Keys are named by resource, revision and size (thumbnails, storyboard sprites and tracks): a changed file gets new names, so cache for a year. */
const cacheControl = "public, max-age=31536000, immutable";

/** RFC 9110 13.1.2: If-None-Match uses weak comparison; `*` matches any current representation. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((candidate) => candidate.trim() === "*" || opaque(candidate) === opaque(etag));
}

/**
 * A stored preview (read through worker/previews; null: none, or the name did not parse), with its ETag and a year
 * of caching; 304 when the caller already has it. Serves thumbnails and storyboard tracks alike.
 */
export async function serveStoredFile(c: Context<AppEnv>, object: R2ObjectBody | null, contentType: string, missing: string): Promise<Response> {
  if (!object) return errorResponse(c, 404, "NOT_FOUND", missing);
  const headers = { etag: object.httpEtag, "cache-control": cacheControl };
  if (etagMatches(c.req.header("if-none-match"), object.httpEtag)) {
    await object.body.cancel();
    return c.body(null, 304, headers);
  }
  return c.body(object.body, 200, { ...headers, "content-type": contentType });
}

/** GET /api/v1/thumbnails/{file}: the WebP from R2. */
export async function serveThumbnail(c: Context<AppEnv>, file: string): Promise<Response> {
  return serveStoredFile(c, await readPreview(c.env, "thumbnail", file), "image/webp", "No such thumbnail.");
}
