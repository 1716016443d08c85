import { playerReferrerPolicy, playerSandbox, videoSize } from "../iframe-policies.ts";
import type { DetectOptions, ProviderDefinition, UrlMatch } from "../provider-definition.ts";
import { formatHms, parseTimestamp } from "../timestamp.ts";
import { pathSegments, withQuery } from "../url-parts.ts";

const videoIdPattern = /^\d{1,12}$/;
const clipSlugPattern = /^[A-Za-z0-9_-]{1,100}$/;
const loginPattern = /^[A-Za-z0-9_]{1,25}$/;
const hostnamePattern = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** First path segments that are site sections, not channel logins. */
const reservedPaths = new Set([
  "directory", "videos", "p", "settings", "subscriptions", "inventory", "wallet", "search", "downloads", "jobs",
  "turbo", "prime", "store", "login", "signup", "friends", "messages", "drops", "bits", "team", "user",
  "moderator", "popout", "embed", "broadcast", "following", "payments", "privacy", "terms", "legal", "security",
  "partner", "creatorcamp", "products", "redeem", "dashboard", "u",
]);

type TwitchRef =
  | { kind: "video"; id: string }
  | { kind: "clip"; slug: string }
  | { kind: "channel"; login: string };

function refOf(url: URL): TwitchRef | undefined {
  const s = pathSegments(url);
  const q = url.searchParams;
  if (url.hostname === "clips.twitch.tv") {
    if (s[0] === "embed" && s.length === 1) return { kind: "clip", slug: q.get("clip") ?? "" };
    return s.length === 1 ? { kind: "clip", slug: s[0]! } : undefined;
  }
  if (url.hostname === "player.twitch.tv") {
    const video = q.get("video");
    if (video !== null) return { kind: "video", id: video.replace(/^v/, "") };
    const channel = q.get("channel");
    return channel !== null ? { kind: "channel", login: channel } : undefined;
  }
  if (s.length === 2 && s[0] === "videos") return { kind: "video", id: s[1]! };
  if (s.length === 3 && s[1] === "clip") return { kind: "clip", slug: s[2]! };
  if (s.length === 3 && (s[1] === "v" || s[1] === "video")) return { kind: "video", id: s[2]! };
  if (s.length === 1 && !reservedPaths.has(s[0]!.toLowerCase())) return { kind: "channel", login: s[0]! };
  return undefined;
}

/**
 * Twitch players refuse to load unless `parent=` names the embedding page's host, which only the caller
 * knows. With DetectOptions.parentHosts the params are added here; without, they are left out and the
 * caller appends them (capabilities.requiresParentHost).
 */
function parentParams(options: DetectOptions): string {
  const hosts = (options.parentHosts ?? []).map((h) => h.toLowerCase()).filter((h) => hostnamePattern.test(h));
  return hosts.map((h) => `&parent=${encodeURIComponent(h)}`).join("");
}

function matchTwitch(url: URL, options: DetectOptions): UrlMatch | null {
  const ref = refOf(url);
  if (!ref) return null;
  const parents = parentParams(options);
  if (ref.kind === "video") {
    if (!videoIdPattern.test(ref.id)) return null;
    const startSeconds = parseTimestamp(url.searchParams.get("t") ?? url.searchParams.get("time"));
    const embedBase = withQuery("https://player.twitch.tv/", {
      video: ref.id, time: startSeconds ? formatHms(startSeconds) : undefined,
    });
    return { id: ref.id, canonicalUrl: `https://www.twitch.tv/videos/${ref.id}`, embedUrl: embedBase + parents, startSeconds };
  }
  if (ref.kind === "clip") {
    if (!clipSlugPattern.test(ref.slug)) return null;
    return {
      id: ref.slug,
      canonicalUrl: `https://clips.twitch.tv/${ref.slug}`,
      embedUrl: withQuery("https://clips.twitch.tv/embed", { clip: ref.slug }) + parents,
    };
  }
  if (!loginPattern.test(ref.login)) return null;
  const login = ref.login.toLowerCase();
  return {
    id: login,
    canonicalUrl: `https://www.twitch.tv/${login}`,
    embedUrl: withQuery("https://player.twitch.tv/", { channel: login }) + parents,
    // A one-segment path may still be a site page we do not know of.
    confidence: 0.8,
  };
}

export const twitch: ProviderDefinition = {
  name: "twitch",
  hosts: ["twitch.tv", "www.twitch.tv", "m.twitch.tv", "clips.twitch.tv", "player.twitch.tv"],
  confidence: 1,
  semanticType: "embedded-video",
  // Twitch retired its public oEmbed endpoint; titles need the Helix API (credentials), so none here.
  iframe: {
    allow: "autoplay; fullscreen; encrypted-media",
    sandbox: `${playerSandbox} allow-storage-access-by-user-activation`,
    referrerPolicy: playerReferrerPolicy,
    ...videoSize,
  },
  capabilities: {
    autoplay: true, timestamps: true, playlists: false, responsive: true, fullscreen: true, requiresParentHost: true,
  },
  match: matchTwitch,
};
