import { playerReferrerPolicy, playerSandbox, videoSize } from "../iframe-policies.ts";
import type { ProviderDefinition, UrlMatch } from "../provider-definition.ts";
import { pathSegments } from "../url-parts.ts";

/** Streamable shortcodes: lower-case alphanumerics, a handful of characters. */
const idPattern = /^[a-z0-9]{4,10}$/;
/** Site pages whose paths fit the shortcode pattern. */
const reservedPaths = new Set([
  "login", "signup", "upload", "settings", "privacy", "terms", "pricing", "about", "blog", "careers",
  "documentation", "videos", "clipper", "community", "help", "support", "enterprise", "dmca", "contact",
  "account", "logout", "features", "tools", "press",
]);

function matchStreamable(url: URL): UrlMatch | null {
  const s = pathSegments(url);
  let id: string | undefined;
  if (s.length === 1 && !reservedPaths.has(s[0]!)) id = s[0];
  else if (s.length === 2 && (s[0] === "e" || s[0] === "o" || s[0] === "s")) id = s[1];
  if (!id || !idPattern.test(id)) return null;
  return { id, canonicalUrl: `https://streamable.com/${id}`, embedUrl: `https://streamable.com/e/${id}` };
}

export const streamable: ProviderDefinition = {
  name: "streamable",
  hosts: ["streamable.com", "www.streamable.com"],
  // A one-segment path may be a site page missing from the reserved list.
  confidence: 0.9,
  semanticType: "embedded-video",
  oembedEndpoint: "https://api.streamable.com/oembed.json",
  iframe: {
    allow: "autoplay; fullscreen; encrypted-media",
    sandbox: playerSandbox,
    referrerPolicy: playerReferrerPolicy,
    ...videoSize,
  },
  capabilities: {
    autoplay: true, timestamps: false, playlists: false, responsive: true, fullscreen: true, requiresParentHost: false,
  },
  match: matchStreamable,
};
