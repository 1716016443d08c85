import { playerReferrerPolicy, playerSandbox } from "../iframe-policies.ts";
import type { ProviderDefinition, UrlMatch } from "../provider-definition.ts";
import { pathSegments, withQuery } from "../url-parts.ts";

/** Permalink slugs: lower-case letters, digits, `_` and `-`. */
const slugPattern = /^[a-z0-9_-]{1,100}$/i;
/** Secret tokens of private share links: /user/track/s-AbC12. */
const secretPattern = /^s-[A-Za-z0-9]{4,30}$/;
/** Site sections that look like /user or /user/track but are not media. */
const reservedFirst = new Set([
  "discover", "search", "stream", "upload", "you", "pages", "settings", "charts", "people", "messages",
  "notifications", "terms-of-use", "jobs", "imprint", "mobile", "pro", "signin", "logout", "tags", "popular",
  "login", "connect", "feed", "home", "creators", "artists", "for-artists", "playlists", "stations", "tracks",
]);
const reservedSecond = new Set([
  "tracks", "albums", "sets", "reposts", "likes", "followers", "following", "comments", "popular-tracks",
  "spotlight", "stations",
]);

/** Permalink path `user/track`, `user/track/s-secret` or `user/sets/set`. */
function permalinkOf(url: URL): { path: string; isSet: boolean } | undefined {
  const s = pathSegments(url);
  if (s.some((segment) => segment === "") || !s[0] || reservedFirst.has(s[0])) return undefined;
  const [user, second, third] = s as [string, string?, string?];
  if (!slugPattern.test(user) || !second) return undefined;
  if (second === "sets" && s.length === 3 && third && slugPattern.test(third)) {
    return { path: `${user}/sets/${third}`, isSet: true };
  }
  if (reservedSecond.has(second) || !slugPattern.test(second)) return undefined;
  if (s.length === 2) return { path: `${user}/${second}`, isSet: false };
  if (s.length === 3 && third && secretPattern.test(third)) return { path: `${user}/${second}/${third}`, isSet: false };
  return undefined;
}

function matchSoundcloud(url: URL): UrlMatch | null {
  const permalink = permalinkOf(url);
  if (!permalink) return null;
  const canonicalUrl = `https://soundcloud.com/${permalink.path}`;
  return {
    // SoundCloud's numeric id is only known after an API call; the permalink path identifies the sound.
    id: permalink.path,
    canonicalUrl,
    embedUrl: withQuery("https://w.soundcloud.com/player/", { url: canonicalUrl }),
    iframe: { height: permalink.isSet ? 450 : 166 },
    playlistId: permalink.isSet ? permalink.path : undefined,
  };
}

export const soundcloud: ProviderDefinition = {
  name: "soundcloud",
  hosts: ["soundcloud.com", "www.soundcloud.com", "m.soundcloud.com"],
  // User pages and sound pages share one shape; the reserved lists exclude known site sections.
  confidence: 0.9,
  semanticType: "embedded-audio",
  oembedEndpoint: "https://soundcloud.com/oembed",
  iframe: {
    allow: "autoplay; encrypted-media",
    sandbox: playerSandbox,
    referrerPolicy: playerReferrerPolicy,
    width: 640,
    height: 166,
  },
  capabilities: {
    autoplay: true, timestamps: false, playlists: true, responsive: true, fullscreen: false, requiresParentHost: false,
  },
  match: matchSoundcloud,
};
