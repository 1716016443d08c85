import { playerReferrerPolicy, playerSandbox } from "../iframe-policies.ts";
import type { ProviderDefinition, UrlMatch } from "../provider-definition.ts";
import { pathSegments } from "../url-parts.ts";

const videoIdPattern = /^\d{15,20}$/;
/** TikTok handles: letters, digits, `_` and `.`, up to 24 characters (we allow a little slack). */
const handlePattern = /^@[A-Za-z0-9_.]{1,30}$/;

function matchTiktok(url: URL): UrlMatch | null {
  const s = pathSegments(url);
  let id: string | undefined;
  let handle: string | undefined;
  if (s.length === 3 && s[1] === "video" && handlePattern.test(s[0]!)) [handle, , id] = s;
  else if (s.length === 3 && s[0] === "embed" && s[1] === "v2") id = s[2];
  else if (s.length === 3 && s[0] === "player" && s[1] === "v1") id = s[2];
  else if (s.length === 2 && s[0] === "embed") id = s[1];
  if (!id || !videoIdPattern.test(id)) return null;
  const embedUrl = `https://www.tiktok.com/player/v1/${id}`;
  // Without the handle there is no page URL; the player URL then stands in as the canonical form.
  const canonicalUrl = handle ? `https://www.tiktok.com/${handle}/video/${id}` : embedUrl;
  return { id, canonicalUrl, embedUrl };
}

export const tiktok: ProviderDefinition = {
  name: "tiktok",
  hosts: ["tiktok.com", "www.tiktok.com", "m.tiktok.com"],
  confidence: 1,
  semanticType: "embedded-video",
  oembedEndpoint: "https://www.tiktok.com/oembed",
  iframe: {
    allow: "autoplay; fullscreen; encrypted-media; picture-in-picture",
    sandbox: playerSandbox,
    referrerPolicy: playerReferrerPolicy,
    // Portrait 9:16 player.
    width: 325,
    height: 578,
  },
  capabilities: {
    autoplay: true, timestamps: false, playlists: false, responsive: false, fullscreen: true, requiresParentHost: false,
  },
  match: matchTiktok,
};
