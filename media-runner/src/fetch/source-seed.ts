/**
 * What a RemoteSource is given (remote-source.ts): its limits, and the bytes the edge already read with the
 * validators that show they are still the same file.
 */

export interface SourceLimits {
  /** Cap on bytes pulled from the origin for this job, and on the announced file size. */
  maxSourceBytes: number;
  /** Cache and request granularity. */
  blockBytes: number;
  /** Longest single Range request, in blocks, reached by doubling on sequential reads. */
  maxSpanBlocks: number;
  /** Cached bytes kept per job (least recently used dropped first). */
  maxCacheBytes: number;
}

export const defaultSourceLimits: Omit<SourceLimits, "maxSourceBytes"> = {
  // Small blocks: an engine reading a 60 KB moov or one keyframe pulls about that, not a quarter MiB.
  blockBytes: 64 * 1024,
  // Sequential reads still grow to 1 MiB requests.
  maxSpanBlocks: 16,
  maxCacheBytes: 24 * 1024 * 1024,
};

/** What the edge already read (RunnerRequest.head): the file's first bytes and the validators it saw. */
export interface SourceSeed {
  /** Bytes from file offset 0. */
  bytes: Buffer;
  /** The file's size as the edge saw it. */
  size: number;
  etag?: string;
  lastModified?: string;
  /** The file's bytes from `offset` to its end, when the edge read them (a moov-last file's index is there). */
  tail?: { offset: number; bytes: Buffer };
}

/** If-Range takes a strong ETag or a date (RFC 9110 13.1.5); a weak ETag is never sent. */
export function ifRangeValidator(seed: SourceSeed): string | undefined {
  if (seed.etag !== undefined && !seed.etag.startsWith("W/")) return seed.etag;
  return seed.lastModified;
}

/** The validators the edge saw, seen again (an origin that ignores If-Range is caught here). */
export function sameFile(seed: SourceSeed, headers: Record<string, string | undefined>): boolean {
  if (seed.etag !== undefined && headers.etag !== seed.etag) return false;
  if (seed.lastModified !== undefined && headers["last-modified"] !== seed.lastModified) return false;
  return true;
}
