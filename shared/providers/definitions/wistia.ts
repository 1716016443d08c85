import { playerReferrerPolicy, playerSandbox, videoSize } from "../iframe-policies.ts";
import type { ProviderDefinition, UrlMatch } from "../provider-definition.ts";
import { parseTimestamp } from "../timestamp.ts";
import { pathSegments, withQuery } from "../url-parts.ts";

/** Wistia hashed media ids: 10 lower-case alphanumerics. */
const idPattern = /^[a-z0-9]{10}$/;
const embedHosts = new Set(["fast.wistia.net", "fast.wistia.com"]);

function idOf(url: URL): string | undefined {
  const s = pathSegments(url);
  if (embedHosts.has(url.hostname)) {
    return s.length === 3 && s[0] === "embed" && (s[1] === "iframe" || s[1] === "medias") ? s[2] : undefined;
  }
  // Account pages: ACCOUNT.wistia.com/medias/ID
  return s.length === 2 && s[0] === "medias" ? s[1] : undefined;
}

function matchWistia(url: URL): UrlMatch | null {
  const id = idOf(url);
  if (!id || !idPattern.test(id)) return null;
  // Share links use `wtime`, embed links `time`; the iframe player takes `time`.
  const startSeconds = parseTimestamp(url.searchParams.get("wtime") ?? url.searchParams.get("time"));
  return {
    id,
    // Ids are global across accounts, so the account subdomain is not part of the identity.
    canonicalUrl: `https://fast.wistia.net/embed/iframe/${id}`,
    embedUrl: withQuery(`https://fast.wistia.net/embed/iframe/${id}`, { time: startSeconds }),
    startSeconds,
  };
}

export const wistia: ProviderDefinition = {
  name: "wistia",
  hosts: ["wistia.com", "fast.wistia.net", "fast.wistia.com"],
  subdomainsOf: ["wistia.com"],
  confidence: 1,
  semanticType: "embedded-video",
  oembedEndpoint: "https://fast.wistia.com/oembed",
  iframe: {
    allow: "autoplay; fullscreen; picture-in-picture; encrypted-media",
    sandbox: playerSandbox,
    referrerPolicy: playerReferrerPolicy,
    ...videoSize,
  },
  capabilities: {
    autoplay: true, timestamps: true, playlists: false, responsive: true, fullscreen: true, requiresParentHost: false,
  },
  match: matchWistia,
};
