/**
 * Path segments of a parsed URL, percent-encoding left as is so id patterns reject encoded tricks.
 * One trailing slash is tolerated (`/video/123/`); empty inner segments (`//`) are kept and fail matching.
 */
export function pathSegments(url: URL): string[] {
  const segments = url.pathname.split("/").slice(1);
  if (segments.length > 1 && segments[segments.length - 1] === "") segments.pop();
  return segments;
}

/** Builds `base?k=v&...` from defined entries only, in the given order, so URLs are deterministic. */
export function withQuery(base: string, params: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) query.append(key, String(value));
  }
  const text = query.toString();
  return text ? `${base}?${text}` : base;
}
