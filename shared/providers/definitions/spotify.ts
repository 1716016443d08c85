import { playerReferrerPolicy, playerSandbox } from "../iframe-policies.ts";
import type { ProviderDefinition, UrlMatch } from "../provider-definition.ts";
import { pathSegments } from "../url-parts.ts";

/** Spotify ids are 22 base62 characters. */
const idPattern = /^[A-Za-z0-9]{22}$/;
const mediaTypes = new Set(["track", "album", "playlist", "episode", "show", "artist"]);
/** Localised share links: /intl-de/track/ID, /intl-pt-BR/... */
const localePattern = /^intl-[a-z]{2}(?:-[a-z0-9]{2,4})?$/i;
/** Single items get Spotify's compact 152 px player; collections the 352 px list player. */
const compactTypes = new Set(["track", "episode"]);

/** [type, id] from the path after stripping the locale / embed prefixes, or from a `spotify:type:id` URI. */
function typeAndId(url: URL): [string | undefined, string | undefined] {
  if (url.protocol === "spotify:") {
    const parts = url.pathname.split(":");
    return parts.length === 2 ? [parts[0], parts[1]] : [undefined, undefined];
  }
  let s = pathSegments(url);
  if (s[0] !== undefined && localePattern.test(s[0])) s = s.slice(1);
  if (s[0] === "embed" || s[0] === "embed-podcast") s = s.slice(1);
  if (s[0] === "user" && s[2] === "playlist") s = s.slice(2); // legacy /user/NAME/playlist/ID
  return s.length === 2 ? [s[0], s[1]] : [undefined, undefined];
}

function matchSpotify(url: URL): UrlMatch | null {
  const [type, id] = typeAndId(url);
  if (!type || !id || !mediaTypes.has(type) || !idPattern.test(id)) return null;
  return {
    id,
    canonicalUrl: `https://open.spotify.com/${type}/${id}`,
    embedUrl: `https://open.spotify.com/embed/${type}/${id}`,
    iframe: { height: compactTypes.has(type) ? 152 : 352 },
    playlistId: type === "playlist" || type === "album" ? id : undefined,
  };
}

export const spotify: ProviderDefinition = {
  name: "spotify",
  hosts: ["open.spotify.com", "play.spotify.com"],
  uriScheme: "spotify:",
  confidence: 1,
  semanticType: "embedded-audio",
  oembedEndpoint: "https://open.spotify.com/oembed",
  iframe: {
    allow: "autoplay; clipboard-write; encrypted-media; fullscreen; picture-in-picture",
    sandbox: playerSandbox,
    referrerPolicy: playerReferrerPolicy,
    width: 640,
    height: 352,
  },
  capabilities: {
    autoplay: false, timestamps: false, playlists: true, responsive: true, fullscreen: false, requiresParentHost: false,
  },
  match: matchSpotify,
};
