/**
 * Where generated previews live in R2 and the URLs they are served at. Every name carries the record's
 * revision (previewRevision): the files are served as immutable for a year, so a changed file must get new
 * URLs, or every browser and CDN would keep showing the old file's thumbnail.
 */
import type { ResourceRecord } from "../../shared/schemas/record.ts";

/** Hex digits of a preview revision. */
export const revisionLength = 16;

/**
 * The revision of a record's previews: a 64-bit digest of what identifies the file's bytes at the origin
 * (its ETag, Last-Modified, size and final URL; not the MIME type, which evidence may revise during the record's
 * life). The same file inspected again (after the record expired) gets the same revision, so URLs a client kept
 * stay valid; a changed file gets a new one. An origin that sends no validator cannot say whether the file
 * changed: each new record is then a revision of its own.
 */
export function previewRevision(record: Pick<ResourceRecord, "probe" | "createdAt">): string {
  const { headers, sizeBytes, finalUrl } = record.probe;
  const etag = headers?.etag ?? "";
  const lastModified = headers?.["last-modified"] ?? "";
  const identity = etag || lastModified ? "" : String(record.createdAt);
  return digest64([etag, lastModified, String(sizeBytes ?? ""), finalUrl, identity].join("\n"));
}

/** cyrb53-style 64-bit string digest (not cryptographic: it names a revision, it guards nothing). */
function digest64(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(16).padStart(8, "0") + (h1 >>> 0).toString(16).padStart(8, "0");
}

/** R2 object key of a generated thumbnail: resource key, revision and size, so a new size never collides. */
export function thumbnailObjectKey(resourceKey: string, revision: string, width: number, height: number): string {
  return `thumbnails/${resourceKey}-${revision}-${width}x${height}.webp`;
}

/** R2 key of a storyboard sprite: beside the thumbnails (same route serves it), named by its tile size. */
export function storyboardSpriteKey(resourceKey: string, revision: string, tileWidth: number, tileHeight: number): string {
  return `thumbnails/${resourceKey}-${revision}-storyboard-${tileWidth}x${tileHeight}.webp`;
}

/** R2 key of a storyboard's WebVTT track. */
export function storyboardVttKey(resourceKey: string, revision: string, tileWidth: number, tileHeight: number): string {
  return `storyboards/${resourceKey}-${revision}-${tileWidth}x${tileHeight}.vtt`;
}

/** R2 key of a waveform's audiowaveform JSON, named by its channels and points (the same `<W>x<H>` name form). */
export function waveformDataKey(resourceKey: string, revision: string, channels: number, length: number): string {
  return `waveforms/${resourceKey}-${revision}-${channels}x${length}.json`;
}

/** The R2 prefixes under which one resource's previews (every revision) are stored. */
export function previewPrefixes(resourceKey: string): string[] {
  return [`thumbnails/${resourceKey}-`, `storyboards/${resourceKey}-`, `waveforms/${resourceKey}-`];
}

/** Whether an object key (under one of previewPrefixes) belongs to this revision. */
export function isOfRevision(objectKey: string, resourceKey: string, revision: string): boolean {
  return previewPrefixes(resourceKey).some((prefix) => objectKey.startsWith(`${prefix}${revision}-`));
}

/** Service-relative URL the Worker serves a thumbnail (or a storyboard sprite) at. */
export function thumbnailPath(objectKey: string): string {
  return `/api/v1/thumbnails/${objectKey.slice("thumbnails/".length)}`;
}

/** Service-relative URL of a storyboard's WebVTT track. */
export function storyboardVttPath(objectKey: string): string {
  return `/api/v1/storyboards/${objectKey.slice("storyboards/".length)}`;
}

/** Service-relative URL of a waveform's audiowaveform JSON. */
export function waveformDataPath(objectKey: string): string {
  return `/api/v1/waveforms/${objectKey.slice("waveforms/".length)}`;
}

/** Longest file name either route accepts: checked before anything else looks at it. */
const maxFileNameLength = 120;

function isLowerHex(text: string, length: number): boolean {
  if (text.length !== length) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

function isDimension(text: string): boolean {
  if (text.length < 1 || text.length > 5) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/**
 * `<64 hex>-[<16 hex revision>-][storyboard-]<W>x<H>.<ext>`, checked in one pass over a bounded name (no
 * pattern engine). The name without a revision is the form written before revisions: records made then still
 * name such files until they expire or are revalidated.
 */
function isStoredFileName(file: string, extension: string, storyboardAllowed: boolean): boolean {
  if (file.length > maxFileNameLength || !file.endsWith(extension)) return false;
  const parts = file.slice(0, -extension.length).split("-");
  if (parts.length < 2 || parts.length > 4 || !isLowerHex(parts[0]!, 64)) return false;
  let next = 1;
  if (parts.length - next > 1 && isLowerHex(parts[next]!, revisionLength)) next++;
  if (storyboardAllowed && parts.length - next > 1 && parts[next] === "storyboard") next++;
  if (parts.length - next !== 1) return false;
  const size = parts[next]!;
  const x = size.indexOf("x");
  return x > 0 && isDimension(size.slice(0, x)) && isDimension(size.slice(x + 1));
}

/** Inverse of thumbnailPath: the R2 key for a requested file name, or undefined when malformed. */
export function objectKeyForFile(file: string): string | undefined {
  return isStoredFileName(file, ".webp", true) ? `thumbnails/${file}` : undefined;
}

/** Inverse of waveformDataPath. */
export function waveformKeyForFile(file: string): string | undefined {
  return isStoredFileName(file, ".json", false) ? `waveforms/${file}` : undefined;
}

/** Inverse of storyboardVttPath. */
export function vttKeyForFile(file: string): string | undefined {
  return isStoredFileName(file, ".vtt", false) ? `storyboards/${file}` : undefined;
}
