import type { ImageContent } from "@modelcontextprotocol/sdk/types.js";
import { readPreview, thumbnailPath } from "../../previews/preview-store.ts";
import { bytesToBase64 } from "../../encoding/base64.ts";

/** Largest stored preview sent as image content (base64 in the JSON answer grows it by a third). */
export const maxImageContentBytes = 2 * 1024 * 1024;

/** The path generated previews are served under (GET /api/v1/thumbnails/{file}). */
const servedPrefix = thumbnailPath("thumbnails/");

/**
 * A generated preview (thumbnail or storyboard sprite, named by its service-relative URL) as MCP image content,
 * read from the same bucket the thumbnails route serves. Provider-native thumbnails (absolute URLs on the
 * provider's site) are not fetched: the tools send only what this service made.
 */
export async function storedPreviewImage(env: Env, url: string | undefined): Promise<ImageContent | undefined> {
  if (!url?.startsWith(servedPrefix)) return undefined;
  const object = await readPreview(env, "thumbnail", url.slice(servedPrefix.length));
  if (!object) return undefined;
  if (object.size > maxImageContentBytes) {
    await object.body.cancel();
    return undefined;
  }
  return { type: "image", data: bytesToBase64(new Uint8Array(await object.arrayBuffer())), mimeType: "image/webp" };
}

/** A service-relative URL made absolute against the service's public origin. */
export function absoluteUrl(url: string, baseUrl: string): string {
  return url.startsWith("/") ? `${baseUrl}${url}` : url;
}
