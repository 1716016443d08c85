/**
 * Writes the playlist ffmpeg reads from a parsed model (hls-model.ts), never from the origin's text: every line
 * is built here from validated values (numbers written as numbers, enumerations from fixed sets, quoted strings
 * free of quotes, backslashes and controls), and every URI is the proxy URL that `register` returns.
 */
import { RunnerError } from "../errors.ts";
import {
  mediaFlagAttributes, mediaTextAttributes, variantGroupAttributes, type ByteRange, type HlsItem, type HlsPlaylist, type UriRole,
} from "./hls-model.ts";

export interface SerialiseOptions {
  /** Returns the proxy URL standing for an absolute http(s) URL; may throw a RunnerError to refuse it. */
  register(url: URL, role: UriRole): string;
  /**
   * Keep only the first N media segments and end the playlist there (previews need one early segment; an
   * ENDLIST also stops ffmpeg from reloading a live playlist).
   */
  keepSegments?: number;
}

/** A proxy URL is printable ASCII without quotes or spaces; anything else would let it break out of its line. */
function proxied(url: URL, role: UriRole, options: SerialiseOptions): string {
  const out = options.register(url, role);
  for (let i = 0; i < out.length; i++) {
    const code = out.charCodeAt(i);
    if (code <= 0x20 || code >= 0x7f || code === 0x22 || code === 0x5c) {
      throw new RunnerError("INTERNAL_ERROR", "a proxy URL is not fit for a playlist");
    }
  }
  return out;
}

const range = (r: ByteRange) => (r.offset === undefined ? String(r.length) : `${r.length}@${r.offset}`);

function line(item: HlsItem, options: SerialiseOptions): string {
  switch (item.kind) {
    case "version": return `#EXT-X-VERSION:${item.value}`;
    case "target-duration": return `#EXT-X-TARGETDURATION:${item.value}`;
    case "media-sequence": return `#EXT-X-MEDIA-SEQUENCE:${item.value}`;
    case "discontinuity-sequence": return `#EXT-X-DISCONTINUITY-SEQUENCE:${item.value}`;
    case "playlist-type": return `#EXT-X-PLAYLIST-TYPE:${item.value}`;
    case "independent-segments": return "#EXT-X-INDEPENDENT-SEGMENTS";
    case "endlist": return "#EXT-X-ENDLIST";
    case "discontinuity": return "#EXT-X-DISCONTINUITY";
    case "start": return `#EXT-X-START:TIME-OFFSET=${item.timeOffset}`;
    case "program-date-time": return `#EXT-X-PROGRAM-DATE-TIME:${item.value}`;
    case "key": {
      const parts = [`METHOD=${item.method}`];
      if (item.uri) parts.push(`URI="${proxied(item.uri, "key", options)}"`);
      if (item.iv) parts.push(`IV=${item.iv}`);
      return `#EXT-X-KEY:${parts.join(",")}`;
    }
    case "map":
      return `#EXT-X-MAP:URI="${proxied(item.uri, "init", options)}"${item.byteRange ? `,BYTERANGE="${range(item.byteRange)}"` : ""}`;
    case "media": {
      const parts = [`TYPE=${item.type}`];
      for (const name of mediaTextAttributes) if (item.text[name] !== undefined) parts.push(`${name}="${item.text[name]}"`);
      for (const name of mediaFlagAttributes) if (item.flags[name] !== undefined) parts.push(`${name}=${item.flags[name] ? "YES" : "NO"}`);
      if (item.uri) parts.push(`URI="${proxied(item.uri, "playlist", options)}"`);
      return `#EXT-X-MEDIA:${parts.join(",")}`;
    }
    case "variant": {
      const parts = [`BANDWIDTH=${item.bandwidth}`];
      for (const name of variantGroupAttributes) if (item.groups[name] !== undefined) parts.push(`${name}="${item.groups[name]}"`);
      return `#EXT-X-STREAM-INF:${parts.join(",")}\n${proxied(item.uri, "playlist", options)}`;
    }
    case "segment": {
      const head = `#EXTINF:${item.duration},${item.byteRange ? `\n#EXT-X-BYTERANGE:${range(item.byteRange)}` : ""}`;
      return `${head}\n${proxied(item.uri, "segment", options)}`;
    }
  }
}

export function serialiseHlsPlaylist(playlist: HlsPlaylist, options: SerialiseOptions): string {
  const out = ["#EXTM3U"];
  let segments = 0;
  /** Lines written up to the last kept segment: what follows it describes segments that are dropped. */
  let afterLastSegment = out.length;
  for (const item of playlist.items) {
    if (item.kind === "segment") {
      if (options.keepSegments !== undefined && segments >= options.keepSegments) {
        out.length = afterLastSegment;
        break;
      }
      segments++;
    }
    out.push(line(item, options));
    if (item.kind === "segment") afterLastSegment = out.length;
  }
  // A cut media playlist always ends: an empty or live one would otherwise be reloaded until the deadline.
  if (options.keepSegments !== undefined && !playlist.master && !out.includes("#EXT-X-ENDLIST")) out.push("#EXT-X-ENDLIST");
  return out.join("\n") + "\n";
}
