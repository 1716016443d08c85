/** Parses `Content-Range: bytes START-END/TOTAL` (RFC 9110 14.4). TOTAL may be `*` (unknown). */
export function parseContentRange(value: string | null): { start: number; end: number; total?: number } | undefined {
  const match = value?.match(/^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i);
  if (!match) return undefined;
  const [, start, end, total] = match;
  return { start: Number(start), end: Number(end), total: total === "*" ? undefined : Number(total) };
}
