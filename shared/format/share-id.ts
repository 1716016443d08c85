/**
 * The id in a share URL (`/v/<id>`): the inspected URL itself, as unpadded base64url of its UTF-8 bytes. Stateless
 * (any instance resolves it with no lookup) and free of dots, so unfurlers that refuse links ending in a media
 * extension (`.mp4`, `.mp3`) fetch the page.
 */

/** Longest id read: the base64url of the longest URL the API accepts (2048 characters, up to 3 UTF-8 bytes each). */
export const maxShareIdLength = Math.ceil((2048 * 3 * 4) / 3);

export function shareIdOf(url: string): string {
  const bytes = new TextEncoder().encode(url);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The URL an id names, or undefined when it is not unpadded base64url of UTF-8 text. Linear in the id's length. */
export function urlOfShareId(id: string): string | undefined {
  if (id.length === 0 || id.length > maxShareIdLength || id.length % 4 === 1) return undefined;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    const ok = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f;
    if (!ok) return undefined;
  }
  try {
    const binary = atob(id.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (id.length % 4)) % 4));
    const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The share page of a URL on the service at baseUrl. */
export function sharePageUrl(baseUrl: string, url: string): string {
  return `${baseUrl}/v/${shareIdOf(url)}`;
}
