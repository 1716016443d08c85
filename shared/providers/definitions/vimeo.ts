import { playerReferrerPolicy, playerSandbox, videoSize } from "../iframe-policies.ts";
import type { ProviderDefinition, UrlMatch } from "../provider-definition.ts";
import { formatHms, fragmentParam, parseTimestamp } from "../timestamp.ts";
import { pathSegments, withQuery } from "../url-parts.ts";

const videoIdPattern = /^\d{1,12}$/;
/** Unlisted videos carry a privacy hash; without it the player and oEmbed answer 403/404. */
const hashPattern = /^[0-9a-f]{6,20}$/;

interface VimeoRef { id: string; hash?: string }

/** Vimeo's page shapes; the id is always numeric, which rules out /channels/staffpicks and the like. */
function refOf(url: URL): VimeoRef | undefined {
  const s = pathSegments(url);
  if (url.hostname === "player.vimeo.com") {
    return s[0] === "video" && s.length === 2 ? { id: s[1]!, hash: url.searchParams.get("h") ?? undefined } : undefined;
  }
  if (s.length === 1) return { id: s[0]! }; // vimeo.com/ID
  if (s.length === 2 && s[0] === "video") return { id: s[1]! }; // vimeo.com/video/ID
  if (s.length === 2 && videoIdPattern.test(s[0]!)) return { id: s[0]!, hash: s[1] }; // vimeo.com/ID/HASH
  if (s.length === 3 && s[0] === "channels") return { id: s[2]! }; // /channels/NAME/ID
  if (s.length === 4 && s[0] === "groups" && s[2] === "videos") return { id: s[3]! }; // /groups/NAME/videos/ID
  if (s.length === 4 && (s[0] === "album" || s[0] === "showcase") && s[2] === "video") return { id: s[3]! };
  return undefined;
}

function matchVimeo(url: URL): UrlMatch | null {
  const ref = refOf(url);
  if (!ref || !videoIdPattern.test(ref.id)) return null;
  if (ref.hash !== undefined && !hashPattern.test(ref.hash)) return null;
  const startSeconds = parseTimestamp(fragmentParam(url, "t") ?? url.searchParams.get("t"));
  const canonicalUrl = ref.hash ? `https://vimeo.com/${ref.id}/${ref.hash}` : `https://vimeo.com/${ref.id}`;
  const playerUrl = withQuery(`https://player.vimeo.com/video/${ref.id}`, { h: ref.hash });
  return {
    id: ref.id,
    canonicalUrl,
    // The Vimeo player reads the start time from the fragment, as in share links.
    embedUrl: startSeconds ? `${playerUrl}#t=${formatHms(startSeconds)}` : playerUrl,
    startSeconds,
  };
}

export const vimeo: ProviderDefinition = {
  name: "vimeo",
  hosts: ["vimeo.com", "www.vimeo.com", "player.vimeo.com"],
  confidence: 1,
  semanticType: "embedded-video",
  oembedEndpoint: "https://vimeo.com/api/oembed.json",
  iframe: {
    allow: "autoplay; fullscreen; picture-in-picture; clipboard-write; encrypted-media",
    sandbox: playerSandbox,
    referrerPolicy: playerReferrerPolicy,
    ...videoSize,
  },
  capabilities: {
    autoplay: true, timestamps: true, playlists: false, responsive: true, fullscreen: true, requiresParentHost: false,
  },
  match: matchVimeo,
};
