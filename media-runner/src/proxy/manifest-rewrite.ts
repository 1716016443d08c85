/**
 * Rewrites an HLS playlist so that every URI in it names the runner's loopback proxy. ffmpeg's HLS demuxer
 * opens whatever URIs a playlist holds (variants, segments, keys, init sections); after this rewrite the only
 * URLs it sees are proxy URLs, so each nested fetch goes through the proxy's SSRF checks, byte cap and deadline.
 * A URI that is not http(s) (`file:`, `data:`, `concat:`, ...) refuses the whole playlist. One linear pass.
 */
import { RunnerError } from "../errors.ts";

/** What a URI is for: the proxy serves playlists rewritten, keys whole and media by Range. */
export type UriRole = "playlist" | "segment" | "init" | "key";

export interface RewriteOptions {
  /** The playlist's own URL after redirects: relative URIs resolve against it. */
  base: URL;
  /** Returns the proxy URL standing for an absolute http(s) URL; may throw a RunnerError to refuse it. */
  register(url: URL, role: UriRole): string;
  /**
   * Keep only the first N media segments and end the playlist there (previews need one early segment; an
   * ENDLIST also stops ffmpeg from reloading a live playlist).
   */
  keepSegments?: number;
}

/**
 * Tags whose URI ffmpeg needs, and what it names. Any other tag holding a URI is dropped with its line:
 * I-frame playlists, low-latency parts, preload hints and rendition reports are not read for one frame, and
 * a URI the proxy does not rewrite must never reach ffmpeg.
 */
const uriTags: Readonly<Record<string, UriRole>> = {
  "EXT-X-MEDIA": "playlist",
  "EXT-X-KEY": "key",
  "EXT-X-SESSION-KEY": "key",
  "EXT-X-MAP": "init",
};

export function rewriteHlsPlaylist(text: string, options: RewriteOptions): string {
  const out: string[] = [];
  let nextIsVariant = false;
  let sawVariant = false;
  let segments = 0;
  /** Lines written up to the last kept segment: what follows it describes segments that are dropped. */
  let afterLastSegment = 0;
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, text.charCodeAt(end - 1) === 13 ? end - 1 : end).trim();
    start = end + 1;
    if (line === "") continue;
    if (line.startsWith("#")) {
      const colon = line.indexOf(":");
      const tag = line.slice(1, colon < 0 ? line.length : colon);
      if (tag === "EXT-X-STREAM-INF") nextIsVariant = sawVariant = true;
      const hasUri = colon >= 0 && line.includes("URI=", colon);
      if (!hasUri) {
        out.push(line);
        continue;
      }
      const role = uriTags[tag];
      if (role) out.push(rewriteUriAttribute(line, colon + 1, role, options));
      continue;
    }
    // A URI line: a variant's playlist after EXT-X-STREAM-INF, a media segment otherwise.
    const role: UriRole = nextIsVariant ? "playlist" : "segment";
    nextIsVariant = false;
    if (role === "segment" && options.keepSegments !== undefined && segments >= options.keepSegments) {
      // Drop the tags that described this segment (EXTINF, BYTERANGE, ...) along with it.
      out.length = afterLastSegment;
      break;
    }
    if (role === "segment") segments++;
    out.push(proxied(line, role, options));
    if (role === "segment") afterLastSegment = out.length;
  }
  // A cut media playlist always ends: an empty or live one would otherwise be reloaded until the deadline.
  if (options.keepSegments !== undefined && !sawVariant && !out.includes("#EXT-X-ENDLIST")) out.push("#EXT-X-ENDLIST");
  return out.join("\n") + "\n";
}

function proxied(uri: string, role: UriRole, options: RewriteOptions): string {
  let url: URL;
  try {
    url = new URL(uri, options.base);
  } catch {
    throw new RunnerError("CORRUPT_MEDIA", "the playlist holds an invalid URI");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RunnerError("SSRF_BLOCKED", `the playlist names a ${url.protocol} URI; only http: and https: are fetched`);
  }
  return options.register(url, role);
}

/** Replaces the value of the URI="..." attribute (at an attribute boundary) with its proxy URL. */
function rewriteUriAttribute(line: string, from: number, role: UriRole, options: RewriteOptions): string {
  let at = from;
  while (at < line.length) {
    if (line.startsWith('URI="', at) && (at === from || line[at - 1] === ",")) {
      const close = line.indexOf('"', at + 5);
      if (close < 0) throw new RunnerError("CORRUPT_MEDIA", "the playlist holds an unterminated URI attribute");
      const value = line.slice(at + 5, close);
      return `${line.slice(0, at + 5)}${proxied(value, role, options)}${line.slice(close)}`;
    }
    // Skip to the next attribute: past a quoted value if one starts here.
    const quote = line.indexOf('"', at);
    const comma = line.indexOf(",", at);
    if (comma < 0) break;
    if (quote >= 0 && quote < comma) {
      const closing = line.indexOf('"', quote + 1);
      if (closing < 0) break;
      at = closing + 1;
      continue;
    }
    at = comma + 1;
  }
  throw new RunnerError("CORRUPT_MEDIA", "the playlist holds a malformed URI attribute");
}
