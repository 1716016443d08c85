import { playerReferrerPolicy, playerSandbox, videoSize } from "../iframe-policies.ts";
import type { ProviderDefinition, UrlMatch } from "../provider-definition.ts";
import { fragmentParam, parseTimestamp } from "../timestamp.ts";
import { pathSegments, withQuery } from "../url-parts.ts";

const videoIdPattern = /^[A-Za-z0-9_-]{11}$/;
// Playlist ids: PL/UU/OL/RD... prefixes followed by base64url; length varies (13 to ~72).
const playlistIdPattern = /^[A-Za-z0-9_-]{12,80}$/;
/** Path prefixes whose next segment is the video id. */
const idPathPrefixes = new Set(["embed", "shorts", "live", "v", "e"]);

/** Finds the video id wherever YouTube puts it: `?v=`, youtu.be/ID, /shorts|embed|live|v/ID. */
function videoIdOf(url: URL): string | undefined {
  const s = pathSegments(url);
  if (url.hostname === "youtu.be") return s.length === 1 ? s[0] : undefined;
  if (s.length === 1 && s[0] === "watch") return url.searchParams.get("v") ?? undefined;
  return s.length === 2 && idPathPrefixes.has(s[0]!) ? s[1] : undefined;
}

function playlistIdOf(url: URL): string | undefined {
  const list = url.searchParams.get("list");
  return list !== null && playlistIdPattern.test(list) ? list : undefined;
}

function matchYoutube(url: URL): UrlMatch | null {
  const playlistId = playlistIdOf(url);
  const segments = pathSegments(url);
  const isPlaylistPage = segments[0] === "playlist" || (segments[0] === "embed" && segments[1] === "videoseries");
  if (isPlaylistPage && url.hostname !== "youtu.be") {
    if (!playlistId) return null;
    return {
      id: playlistId,
      playlistId,
      canonicalUrl: withQuery("https://www.youtube.com/playlist", { list: playlistId }),
      embedUrl: withQuery("https://www.youtube-nocookie.com/embed/videoseries", { list: playlistId }),
      oembedUrl: withQuery("https://www.youtube.com/playlist", { list: playlistId }),
    };
  }
  const id = videoIdOf(url);
  if (!id || !videoIdPattern.test(id)) return null;
  const startSeconds = parseTimestamp(url.searchParams.get("t") ?? url.searchParams.get("start") ?? fragmentParam(url, "t"));
  const watchUrl = withQuery("https://www.youtube.com/watch", { v: id });
  return {
    id,
    canonicalUrl: withQuery("https://www.youtube.com/watch", { v: id, list: playlistId }),
    // youtube-nocookie: the same player without tracking cookies until the viewer presses play.
    embedUrl: withQuery(`https://www.youtube-nocookie.com/embed/${id}`, { start: startSeconds, list: playlistId }),
    thumbnailUrl: `https://i.ytimg.com/vi/${id}/hqdefault.jpg`,
    oembedUrl: watchUrl,
    startSeconds,
    playlistId,
  };
}

export const youtube: ProviderDefinition = {
  name: "youtube",
  hosts: [
    "youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com",
    "youtu.be", "youtube-nocookie.com", "www.youtube-nocookie.com",
  ],
  confidence: 1,
  semanticType: "embedded-video",
  oembedEndpoint: "https://www.youtube.com/oembed",
  iframe: {
    allow: "accelerometer; autoplay; clipboard-write; encrypted-media; gyroscope; picture-in-picture; web-share",
    sandbox: playerSandbox,
    referrerPolicy: playerReferrerPolicy,
    ...videoSize,
  },
  capabilities: {
    autoplay: true, timestamps: true, playlists: true, responsive: true, fullscreen: true, requiresParentHost: false,
  },
  match: matchYoutube,
};
