/** Longest URL reported from a page (longer ones are tracking junk or attacks). */
export const maxPageUrlChars = 2048;

/** `value` resolved against the page URL, if the result is http(s) and of sane length. */
export function absoluteHttpUrl(value: string, pageUrl: string): string | undefined {
  const trimmed = value.trim();
  if (!trimmed || trimmed.length > maxPageUrlChars) return undefined;
  let url: URL;
  try {
    url = new URL(trimmed, pageUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  return url.href.length > maxPageUrlChars ? undefined : url.href;
}
