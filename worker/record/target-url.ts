import { maxUrlLength } from "../../shared/schemas/inspect.ts";
import { errors } from "../errors/api-error.ts";
import { sha256Hex } from "../encoding/sha256.ts";

/** Validates a caller-supplied URL (http/https only) and returns it parsed by the WHATWG parser. */
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

/**
 * Query parameters that only track who shared a link or from where; they never select the content. Removed
 * from the resource identity, so one caller's share link (and its identifiers) never reaches another caller
 * through a shared record, and tracking variants of one URL are one resource.
 */
export const trackingParameters: readonly string[] = [
  "fbclid", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid", "ttclid", "li_fat_id",
  "igshid", "igsh", "si", "mc_cid", "mc_eid", "_hsenc", "_hsmi", "mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id",
  "ref_src", "ref_url", "s_cid", "spm", "share_id", "feature",
];
/** Every parameter starting with one of these is tracking too (utm_source, utm_medium, ...). */
export const trackingParameterPrefixes: readonly string[] = ["utm_", "pk_", "mtm_", "hsa_"];

function isTrackingParameter(name: string): boolean {
  const lower = name.toLowerCase();
  return trackingParameters.includes(lower) || trackingParameterPrefixes.some((prefix) => lower.startsWith(prefix));
}

/** The resource identity: WHATWG-normalised, without the fragment (never sent to servers) or tracking parameters. */
export function normalizeUrl(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = "";
  const names = [...new Set([...copy.searchParams.keys()])];
  // Only rewrite the query when something is removed: an untouched query keeps its exact encoding.
  if (names.some(isTrackingParameter)) {
    for (const name of names) if (isTrackingParameter(name)) copy.searchParams.delete(name);
  }
  return copy.href;
}

export async function resourceKey(normalizedUrl: string): Promise<string> {
  return sha256Hex(normalizedUrl);
}
