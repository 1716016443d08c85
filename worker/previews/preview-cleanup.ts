import { isOfRevision, previewPrefixes } from "./preview-keys.ts";

/** Preview objects of one resource listed per prefix and call: one per size and revision, a handful at most. */
const maxThumbnailsPerResource = 100;

/**
 * Deletes a resource's generated previews (thumbnails, storyboard sprites and tracks) except those of
 * `keepRevision`: its file changed, and the old previews describe the old file. Their URLs then answer 404,
 * while the new revision's files have new URLs (preview-keys.ts).
 */
export async function deleteThumbnailsOf(bucket: R2Bucket, resourceKey: string, keepRevision?: string): Promise<void> {
  for (const prefix of previewPrefixes(resourceKey)) {
    const listed = await bucket.list({ prefix, limit: maxThumbnailsPerResource });
    const stale = listed.objects.map((o) => o.key).filter((key) => keepRevision === undefined || !isOfRevision(key, resourceKey, keepRevision));
    if (stale.length > 0) await bucket.delete(stale);
  }
}
