/** R2 object key of a generated thumbnail: the resource key plus size, so a new size never collides. */
export function thumbnailObjectKey(resourceKey: string, width: number, height: number): string {
  return `thumbnails/${resourceKey}-${width}x${height}.webp`;
}

/** R2 key of a storyboard sprite: beside the thumbnails (same route serves it), named by its tile size. */
export function storyboardSpriteKey(resourceKey: string, tileWidth: number, tileHeight: number): string {
  return `thumbnails/${resourceKey}-storyboard-${tileWidth}x${tileHeight}.webp`;
}

/** R2 key of a storyboard's WebVTT track. */
export function storyboardVttKey(resourceKey: string, tileWidth: number, tileHeight: number): string {
  return `storyboards/${resourceKey}-${tileWidth}x${tileHeight}.vtt`;
}

/** Service-relative URL the Worker serves a thumbnail (or a storyboard sprite) at. */
export function thumbnailPath(objectKey: string): string {
  return `/api/v1/thumbnails/${objectKey.slice("thumbnails/".length)}`;
}

/** Service-relative URL of a storyboard's WebVTT track. */
export function storyboardVttPath(objectKey: string): string {
  return `/api/v1/storyboards/${objectKey.slice("storyboards/".length)}`;
}

/** Longest file name either route accepts: checked before any pattern runs. */
const maxFileNameLength = 120;

/** Inverse of thumbnailPath: the R2 key for a requested file name, or undefined when malformed. */
export function objectKeyForFile(file: string): string | undefined {
  return file.length <= maxFileNameLength && /^[0-9a-f]{64}-(?:storyboard-)?\d{1,5}x\d{1,5}\.webp$/.test(file) ? `thumbnails/${file}` : undefined;
}

/** Inverse of storyboardVttPath. */
export function vttKeyForFile(file: string): string | undefined {
  return file.length <= maxFileNameLength && /^[0-9a-f]{64}-\d{1,5}x\d{1,5}\.vtt$/.test(file) ? `storyboards/${file}` : undefined;
}
