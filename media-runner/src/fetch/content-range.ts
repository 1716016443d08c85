/** A parsed `Content-Range: bytes start-end/size` (size undefined for "*"). */
export interface ContentRange {
  start: number;
  end: number;
  size?: number;
}

export function parseContentRange(value: string | undefined): ContentRange | undefined {
  const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/i.exec(value?.trim() ?? "");
  if (!match) return undefined;
  const start = Number(match[1]);
  const end = Number(match[2]);
  if (end < start) return undefined;
  return match[3] === "*" ? { start, end } : { start, end, size: Number(match[3]) };
}

/** Content-Length as a number, or undefined when absent or malformed. */
export function parseContentLength(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
}
