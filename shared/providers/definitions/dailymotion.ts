import { playerReferrerPolicy, playerSandbox, videoSize } from "../iframe-policies.ts";
import type { ProviderDefinition, UrlMatch } from "../provider-definition.ts";
import { parseTimestamp } from "../timestamp.ts";
import { pathSegments, withQuery } from "../url-parts.ts";

/** Dailymotion ids: short alphanumerics such as x8abc12 (private ones start with k). */
const idPattern = /^[A-Za-z0-9]{5,12}$/;

/** Old page links append the slug to the id: /video/x2bqs3_some-title. */
function stripSlug(segment: string | undefined): string | undefined {
  return segment?.split("_")[0];
}

function idOf(url: URL): string | undefined {
  const s = pathSegments(url);
  if (url.hostname === "dai.ly") return s.length === 1 ? s[0] : undefined;
  if (url.hostname === "geo.dailymotion.com") {
    return s[0] === "player.html" || (s[0] === "player" && s.length === 2) ? url.searchParams.get("video") ?? undefined : undefined;
  }
  if (s.length === 2 && s[0] === "video") return stripSlug(s[1]);
  if (s.length === 3 && s[0] === "embed" && s[1] === "video") return s[2];
  return undefined;
}

function matchDailymotion(url: URL): UrlMatch | null {
  const id = idOf(url);
  if (!id || !idPattern.test(id)) return null;
  const startSeconds = parseTimestamp(url.searchParams.get("start") ?? url.searchParams.get("t"));
  return {
    id,
    canonicalUrl: `https://www.dailymotion.com/video/${id}`,
    embedUrl: withQuery(`https://www.dailymotion.com/embed/video/${id}`, { start: startSeconds }),
    // Documented redirect to the current poster image of the video.
    thumbnailUrl: `https://www.dailymotion.com/thumbnail/video/${id}`,
    startSeconds,
  };
}

export const dailymotion: ProviderDefinition = {
  name: "dailymotion",
  hosts: ["dailymotion.com", "www.dailymotion.com", "dai.ly", "geo.dailymotion.com"],
  confidence: 1,
  semanticType: "embedded-video",
  oembedEndpoint: "https://www.dailymotion.com/services/oembed",
  iframe: {
    allow: "autoplay; fullscreen; picture-in-picture; web-share",
    sandbox: playerSandbox,
    referrerPolicy: playerReferrerPolicy,
    ...videoSize,
  },
  capabilities: {
    autoplay: true, timestamps: true, playlists: false, responsive: true, fullscreen: true, requiresParentHost: false,
  },
  match: matchDailymotion,
};
