/** Longer inputs are not share links; refuse them before parsing. */
export const maxUrlLength = 8192;

/**
 * Parses with the WHATWG URL parser (the one browsers and fetch use, so we judge the host they would
 * connect to) and refuses what a share link never has: userinfo (`https://youtube.com@evil.example/`
 * shows one host but reaches another) and explicit non-default ports. Other schemes pass through for
 * the registry's scheme lookup, which knows only provider-owned URIs.
 */
export function parseCandidateUrl(input: string | URL): URL | null {
  const text = typeof input === "string" ? input : input.href;
  if (text.length > maxUrlLength) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.username !== "" || url.password !== "") return null;
  if ((url.protocol === "http:" || url.protocol === "https:") && url.port !== "") return null;
  return url;
}
