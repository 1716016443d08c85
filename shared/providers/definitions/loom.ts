import { playerReferrerPolicy, playerSandbox, videoSize } from "../iframe-policies.ts";
import type { ProviderDefinition, UrlMatch } from "../provider-definition.ts";
import { parseTimestamp } from "../timestamp.ts";
import { pathSegments, withQuery } from "../url-parts.ts";

/** Loom ids are 32 hex digits; share links may prefix a title slug: /share/My-demo-<id>. */
const idAtEndPattern = /^(?:[A-Za-z0-9_-]*-)?([0-9a-f]{32})$/;
const idPrefixes = new Set(["share", "embed", "v"]);

function matchLoom(url: URL): UrlMatch | null {
  const s = pathSegments(url);
  if (s.length !== 2 || !idPrefixes.has(s[0]!)) return null;
  const id = idAtEndPattern.exec(s[1]!)?.[1];
  if (!id) return null;
  const startSeconds = parseTimestamp(url.searchParams.get("t"));
  return {
    id,
    canonicalUrl: `https://www.loom.com/share/${id}`,
    embedUrl: withQuery(`https://www.loom.com/embed/${id}`, { t: startSeconds }),
    startSeconds,
  };
}

export const loom: ProviderDefinition = {
  name: "loom",
  hosts: ["loom.com", "www.loom.com"],
  confidence: 1,
  semanticType: "embedded-video",
  oembedEndpoint: "https://www.loom.com/v1/oembed",
  iframe: {
    allow: "autoplay; fullscreen; picture-in-picture; clipboard-write",
    sandbox: playerSandbox,
    referrerPolicy: playerReferrerPolicy,
    ...videoSize,
  },
  capabilities: {
    autoplay: true, timestamps: true, playlists: false, responsive: true, fullscreen: true, requiresParentHost: false,
  },
  match: matchLoom,
};
