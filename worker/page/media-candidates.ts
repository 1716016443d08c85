/**
 * The media a page names: og:video, og:audio, twitter:player:stream and JSON-LD VideoObject/AudioObject
 * contentUrl, as absolute http(s) URLs. A known provider's URL (a YouTube URL in og:video) becomes that
 * provider's embed; anything else is a direct file or manifest to inspect as its own resource.
 */
import { detectProvider } from "../../shared/providers/index.ts";
import type { PageEmbed } from "../../shared/shapes/streaming-page.ts";
import type { HeadElements } from "./head-elements.ts";
import type { JsonLdFacts } from "./json-ld.ts";
import { absoluteHttpUrl } from "./absolute-url.ts";

export type MediaSource = "og:video" | "og:audio" | "twitter:player:stream" | "json-ld";

export interface MediaCandidate {
  url: string;
  source: MediaSource;
  /** MIME type the page declares for it (og:video:type, twitter:player:stream:content_type, encodingFormat). */
  declaredType?: string;
  kind: "video" | "audio";
}

/** Candidates kept; the first usable one is inspected. */
export const maxMediaCandidates = 8;

/** Declared types that name a player page or plug-in, not media. */
const notMedia = /^(text\/html|application\/x-shockwave-flash|application\/xhtml)/i;

export function mediaCandidates(head: HeadElements, jsonLd: JsonLdFacts, pageUrl: string): { candidates: MediaCandidate[]; embed?: PageEmbed } {
  const raw: MediaCandidate[] = [];
  const meta = (key: string) => head.metas.find((m) => m.property === key || m.name === key)?.content;
  const push = (value: string | undefined, source: MediaSource, kind: "video" | "audio", declaredType?: string) => {
    const url = value ? absoluteHttpUrl(value, pageUrl) : undefined;
    if (url && !raw.some((c) => c.url === url)) raw.push({ url, source, kind, ...(declaredType ? { declaredType: declaredType.toLowerCase() } : {}) });
  };
  push(meta("og:video:secure_url") ?? meta("og:video:url") ?? meta("og:video"), "og:video", "video", meta("og:video:type"));
  push(meta("og:audio:secure_url") ?? meta("og:audio:url") ?? meta("og:audio"), "og:audio", "audio", meta("og:audio:type"));
  push(meta("twitter:player:stream"), "twitter:player:stream", "video", meta("twitter:player:stream:content_type"));
  for (const media of jsonLd.media) {
    push(media.contentUrl, "json-ld", media.kind, media.encodingFormat?.includes("/") ? media.encodingFormat : undefined);
    push(media.embedUrl, "json-ld", media.kind, "text/html");
  }
  // Provider pages (og:video = https://www.youtube.com/embed/ID, twitter:player) are embeds, not files.
  const players = [...raw.map((c) => c.url), absoluteHttpUrl(meta("twitter:player") ?? "", pageUrl)];
  let embed: PageEmbed | undefined;
  for (const url of players) {
    const match = url ? detectProvider(url) : null;
    if (url && match) {
      embed = { provider: match.name, url, embedUrl: match.embedUrl };
      break;
    }
  }
  const candidates = raw
    .filter((c) => !(c.declaredType && notMedia.test(c.declaredType)) && !detectProvider(c.url))
    .slice(0, maxMediaCandidates);
  return { candidates, ...(embed ? { embed } : {}) };
}
