import { maxUrlLength } from "../../shared/schemas/inspect.ts";
import { errors } from "../errors/api-error.ts";

/** Validates a caller-supplied URL (SPEC 8: http/https only) and returns it parsed by the WHATWG parser. */
export function parseTargetUrl(raw: string, field = "url"): URL {
  if (raw.length > maxUrlLength) throw errors.invalidUrl(`${field} is longer than ${maxUrlLength} characters.`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw errors.invalidUrl(`${field} is not a valid absolute URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw errors.invalidUrl(`${field} must use http or https, not ${url.protocol.replace(":", "")}.`);
  }
  if (url.username || url.password) throw errors.invalidUrl(`${field} must not contain credentials (user:password@).`);
  if (!url.hostname) throw errors.invalidUrl(`${field} has no host.`);
  return url;
}

/** The resource identity: WHATWG-normalised, without the fragment (never sent to servers). */
export function normalizeUrl(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = "";
  return copy.href;
}

export async function resourceKey(normalizedUrl: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(normalizedUrl));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
