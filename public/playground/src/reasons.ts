import type { ErrorReason } from "../../../shared/schemas/error.ts";

/** Why a URL failed, in words a visitor can act on (error.reason). */
const words: Record<ErrorReason, string> = {
  "bot-challenge": "The site answered with a bot-protection challenge (a \"checking your browser\" page); it shows this URL only to browsers that pass it.",
  "login-required": "The site wants a signed-in user for this URL (it answered 401 or sent us to its sign-in page).",
  "consent-wall": "The site shows a cookie/consent page before this URL; it cannot be inspected without accepting it.",
  "geo-blocked": "The site blocks this content in the region the service fetched it from (HTTP 451).",
  "upstream-rate-limited": "The site is rate-limiting the service; try again later.",
  "upstream-error": "The site failed or answered with an error.",
  dns: "The site's host name does not resolve.",
  tls: "A secure (TLS) connection to the site could not be made.",
  timeout: "The site did not answer in time.",
  "too-large": "The file is larger than the service inspects.",
};

export function reasonInWords(reason: string | undefined, upstreamStatus: number | undefined, retryAfter: string | null): string | undefined {
  const text = reason !== undefined ? words[reason as ErrorReason] : undefined;
  if (!text) return undefined;
  const status = upstreamStatus !== undefined ? ` (the site answered HTTP ${upstreamStatus})` : "";
  const wait = reason === "upstream-rate-limited" && retryAfter ? ` It asked to wait ${retryAfter} s.` : "";
  return `${text}${status}${wait}`;
}
