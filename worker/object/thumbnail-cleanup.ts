/** Thumbnails of one resource listed per call: a resource has one per size generated, a handful at most. */
const maxThumbnailsPerResource = 100;

/** Deletes a resource's generated thumbnails (its file changed: the old previews describe the old file). */
export async function deleteThumbnailsOf(bucket: R2Bucket, resourceKey: string): Promise<void> {
  const listed = await bucket.list({ prefix: `thumbnails/${resourceKey}-`, limit: maxThumbnailsPerResource });
  if (listed.objects.length > 0) await bucket.delete(listed.objects.map((o) => o.key));
}
