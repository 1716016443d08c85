/** A single byte range from a request's Range header, resolved against the file size. */
export type RangeRequest =
  | { kind: "none" }
  | { kind: "range"; start: number; end: number }
  | { kind: "unsatisfiable" };

/**
 * Parses `Range: bytes=a-b`, `bytes=a-` and `bytes=-n` (one range; ffmpeg never asks for more).
 * size undefined (unknown length) only allows ranges from 0, i.e. a plain sequential read.
 */
export function parseRange(header: string | undefined, size: number | undefined): RangeRequest {
  if (header === undefined) return { kind: "none" };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return { kind: "none" };
  if (size === undefined) return match[1] === "0" && match[2] === "" ? { kind: "none" } : { kind: "unsatisfiable" };
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0) return { kind: "unsatisfiable" };
    return { kind: "range", start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return { kind: "unsatisfiable" };
  return { kind: "range", start, end };
}
