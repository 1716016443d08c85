/** R2 object key of a generated thumbnail: the resource key plus size, so a new size never collides. */
export function thumbnailObjectKey(resourceKey: string, width: number, height: number): string {
  return `thumbnails/${resourceKey}-${width}x${height}.webp`;
}

/** Service-relative URL the Worker serves a thumbnail at. */
export function thumbnailPath(objectKey: string): string {
  return `/api/v1/thumbnails/${objectKey.slice("thumbnails/".length)}`;
}

/** Inverse of thumbnailPath: the R2 key for a requested file name, or undefined when malformed. */
export function objectKeyForFile(file: string): string | undefined {
  return /^[0-9a-f]{64}-\d{1,5}x\d{1,5}\.webp$/.test(file) ? `thumbnails/${file}` : undefined;
}
