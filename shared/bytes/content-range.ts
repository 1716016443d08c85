/** A parsed `Content-Range: bytes start-end/size` (RFC 9110 14.4); `size` is undefined for `*` (unknown). */
export interface ContentRange {
  start: number;
  end: number;
  size?: number;
}

/** Longest header value looked at: `bytes ` plus three 16-digit numbers is far below it. */
const maxContentRangeLength = 64;

/**
 * Parses the satisfied form of Content-Range, used by the Worker's probe and the runner's byte source alike.
 * One left-to-right pass over a bounded string (no regular expression): malformed, unsatisfied (`bytes
 * * /size`) and end-before-start values give undefined.
 */
export function parseContentRange(value: string | null | undefined): ContentRange | undefined {
  const text = value?.trim();
  if (!text || text.length > maxContentRangeLength || text.slice(0, 6).toLowerCase() !== "bytes ") return undefined;
  let i = 6;
  while (text[i] === " ") i++;
  const readNumber = (): number | undefined => {
    const from = i;
    while (i < text.length && text[i]! >= "0" && text[i]! <= "9") i++;
    return i > from && i - from <= 16 ? Number(text.slice(from, i)) : undefined;
  };
  const start = readNumber();
  if (start === undefined || text[i++] !== "-") return undefined;
  const end = readNumber();
  if (end === undefined || end < start || text[i++] !== "/") return undefined;
  if (text[i] === "*" && i + 1 === text.length) return { start, end };
  const size = readNumber();
  return size !== undefined && i === text.length ? { start, end, size } : undefined;
}

/** Content-Length as a number, or undefined when absent or not a plain decimal. */
export function parseContentLength(value: string | null | undefined): number | undefined {
  const text = value?.trim();
  if (!text || text.length > 16) return undefined;
  for (const c of text) if (c < "0" || c > "9") return undefined;
  return Number(text);
}
