/**
 * The playlist ffmpeg reads for an HLS playlist the origin served: parsed into a model (hls-model.ts), then
 * written anew from it (hls-serialise.ts) with every URI replaced by a proxy URL. The origin's text is never
 * passed on with substitutions, so nothing a rewriter could misread (a CR, a NUL, a repeated attribute) can
 * carry a URI past the proxy: the model has no place for it, or the parse refuses the playlist.
 */
import { parseHlsPlaylist, type UriRole } from "./hls-model.ts";
import { serialiseHlsPlaylist, type SerialiseOptions } from "./hls-serialise.ts";

export type { UriRole };

export interface RewriteOptions extends SerialiseOptions {
  /** The playlist's own URL after redirects: relative URIs resolve against it. */
  base: URL;
}

export function rewriteHlsPlaylist(text: string, options: RewriteOptions): string {
  return serialiseHlsPlaylist(parseHlsPlaylist(text, options.base), options);
}
