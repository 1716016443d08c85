import { clientAddressOf } from "./rate-limit.ts";
import type { Context } from "hono";
import { escapeHtmlAttribute } from "../../shared/providers/index.ts";
import type { AppEnv } from "./app-env.ts";
import { hostOf } from "./oembed-handler.ts";
import { inspectForSharing } from "./oembed-inspection.ts";
import { audioStyle, playerHtml } from "./oembed-document.ts";
import { shareIdOf, sharePageUrl } from "../../shared/format/share-id.ts";
import { cardSize } from "./share-card.ts";
import type { SharedMedia, Size } from "./oembed-media.ts";
import { annotate } from "./request-log.ts";

/**
 * GET /v/{id} (and /v?url=): a small page that plays the media with the service's player and carries what unfurlers read (the
 * oEmbed discovery link, OpenGraph, the Twitter player card). Every value written into it is HTML-escaped: the
 * title comes from the origin. Its CSP allows no script and no style but the one inline style sizing an <audio>
 * player (by its hash), and loads only the origins it names. Its canonical address (og:url, the player card) is
 * the /v/{id} form: unfurlers refuse a link whose query ends in a media extension without fetching it.
 */

const esc = escapeHtmlAttribute;

/** An origin is put into the CSP only when it is exactly scheme://host[:port]: nothing can add a directive. */
const plainOrigin = /^https?:\/\/(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

export async function answerSharePage(c: Context<AppEnv>, url: string, baseUrl: string) {
  annotate(c, { profile: "share", targetHost: hostOf(url) });
  const shared = await inspectForSharing(c.env, url, baseUrl, { requestId: c.get("requestId"), clientAddress: clientAddressOf(c.req.raw, c.env) });
  annotate(c, { responseSource: shared.outcome.responseSource });
  const pageUrl = sharePageUrl(baseUrl, url);
  const oembedUrl = `${baseUrl}/oembed?url=${encodeURIComponent(url)}&format=json`;
  const cardUrl = `${baseUrl}/v/${shareIdOf(url)}/card.png`;
  const styleHashes = shared.media.element.tag === "audio" ? [await sha256Base64(audioStyle(shared.media.size))] : [];
  c.header("Content-Security-Policy", sharePageCsp(shared.media, styleHashes));
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", shared.complete && shared.cacheAge > 0 ? `public, max-age=${shared.cacheAge}` : "no-store");
  return c.html(sharePageHtml(shared.media, { pageUrl, oembedUrl, cardUrl }), 200);
}

async function sha256Base64(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  let binary = "";
  for (const b of digest) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** og:type by what the page shows (OpenGraph's object types). */
function openGraphType(kind: SharedMedia["kind"]): string {
  return kind === "audio" ? "music.song" : kind === "video" ? "video.other" : "website";
}

export function sharePageHtml(media: SharedMedia & { size: Size }, links: { pageUrl: string; oembedUrl: string; cardUrl?: string }): string {
  const title = media.title ?? "Shared media";
  const { width, height } = media.size;
  const meta = (property: string, content: string | number) => `<meta property="${property}" content="${esc(String(content))}">`;
  const named = (name: string, content: string | number) => `<meta name="${name}" content="${esc(String(content))}">`;
  const tags = [meta("og:title", title), meta("og:url", links.pageUrl), named("twitter:title", title)];
  // Audio shows its cover art (the thumbnail) when it has one; otherwise the generated card stands in, so every
  // unfurl has an image.
  const card = links.cardUrl && media.kind === "audio" ? { url: links.cardUrl, ...cardSize } : undefined;
  const image = media.kind === "photo" ? { url: media.src, width, height } : media.thumbnail ?? card;
  if (image) tags.push(meta("og:image", image.url), meta("og:image:width", image.width), meta("og:image:height", image.height), named("twitter:image", image.url));
  if (media.kind === "photo") {
    tags.push(meta("og:type", openGraphType(media.kind)), named("twitter:card", "summary_large_image"));
  } else {
    const kind = media.kind === "audio" ? "audio" : "video";
    tags.push(
      meta("og:type", openGraphType(media.kind)),
      meta(`og:${kind}`, media.src),
      meta(`og:${kind}:type`, media.mime),
      ...(kind === "video" ? [meta("og:video:width", width), meta("og:video:height", height)] : []),
      // The player card's player is this very page (its CSP lets any site frame it).
      named("twitter:card", "player"),
      named("twitter:player", links.pageUrl),
      named("twitter:player:width", width),
      named("twitter:player:height", height),
      // A stream only for video: unfurlers read twitter:player:stream as video (metascraper-video takes any content
      // type ending in a video extension, so audio/mpeg's "mpeg" made an MP3 a video); audio has og:audio.
      ...(media.mime !== "text/html" && kind === "video"
        ? [named("twitter:player:stream", media.src), named("twitter:player:stream:content_type", media.mime)]
        : []),
    );
  }
  const player = media.kind === "photo"
    ? `<img src="${esc(media.src)}" alt="${esc(title)}" width="${width}" height="${height}">`
    : playerHtml(media, media.size);
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title>`,
    `<link rel="alternate" type="application/json+oembed" href="${esc(links.oembedUrl)}" title="${esc(title)}">`,
    ...tags,
    "</head><body><main>",
    player,
    `<p><a href="${esc(media.src)}" rel="noopener noreferrer nofollow">${esc(title)}</a></p>`,
    "</main></body></html>",
  ].join("\n");
}

/**
 * No script, no style, no plugin, no form, no base; media, images and frames only from the origins the page
 * names (the file's, the generated poster's, the provider's player). Any site may frame it: it is the player.
 */
export function sharePageCsp(media: SharedMedia, styleHashes: readonly string[] = []): string {
  const origins = { media: new Set<string>(), img: new Set<string>(), frame: new Set<string>() };
  const add = (set: Set<string>, url: unknown) => {
    if (typeof url !== "string") return;
    try {
      const origin = new URL(url).origin;
      if (plainOrigin.test(origin)) set.add(origin);
    } catch {
      // Not a URL: nothing to allow.
    }
  };
  const { tag, attributes } = media.element;
  if (tag === "iframe") add(origins.frame, attributes.src);
  else if (tag === "img" || media.kind === "photo") add(origins.img, media.src);
  else add(origins.media, media.src);
  add(origins.img, attributes.poster);
  const list = (set: Set<string>) => (set.size ? [...set].join(" ") : "'none'");
  return [
    "default-src 'none'",
    `media-src ${list(origins.media)}`,
    `img-src ${list(origins.img)}`,
    `frame-src ${list(origins.frame)}`,
    // Hashes of inline style attributes only ('unsafe-hashes' allows no stylesheet and no script).
    ...(styleHashes.length ? [`style-src 'unsafe-hashes' ${styleHashes.map((h) => `'sha256-${h}'`).join(" ")}`] : []),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors *",
  ].join("; ");
}
