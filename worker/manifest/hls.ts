/// <reference path="./vendor-parsers.d.ts" />
/**
 * Reads an HLS playlist with m3u8-parser (video.js) after the linear scan of hls-scan.ts, and resolves every
 * URI against the playlist's own URL. A master lists variants and renditions; a media playlist lists segments.
 */
import { Parser, type M3u8Manifest, type M3u8Playlist } from "m3u8-parser";
import type { StreamingAudio, StreamingSubtitle, StreamingVariant } from "../../shared/shapes/streaming-page.ts";
import { ManifestError } from "./manifest-error.ts";
import { scanHlsText, type HlsKey } from "./hls-scan.ts";
import { resolveUri } from "./resolve-uri.ts";

export interface HlsVariant extends StreamingVariant {
  /** Absolute http(s) URL of the variant's media playlist; undefined when the URI is unusable. */
  url: string | undefined;
  audioGroup?: string;
  hasVideo: boolean;
}

export interface HlsAudioRendition extends StreamingAudio {
  url: string | undefined;
  groupId: string;
}

export interface HlsMaster {
  kind: "master";
  variants: HlsVariant[];
  audio: HlsAudioRendition[];
  subtitles: StreamingSubtitle[];
  keys: HlsKey[];
  lowLatency: boolean;
}

export interface HlsSegmentRef {
  url: string;
  /** EXT-X-MAP initialisation section (fMP4 segments). */
  initUrl?: string;
  /** METHOD of the key that applies, when the segment is encrypted. */
  encryption?: string;
  durationSeconds: number;
}

export interface HlsMedia {
  kind: "media";
  segmentCount: number;
  /** Sum of EXTINF durations. */
  durationSeconds: number;
  endList: boolean;
  /** EXT-X-PLAYLIST-TYPE: VOD promises no change, EVENT only appends. */
  playlistType?: string;
  keys: HlsKey[];
  lowLatency: boolean;
  /** The first segments (for previews), resolved. */
  firstSegments: HlsSegmentRef[];
}

/** Segments kept for previews: the first one may be a black lead-in, the next is the fallback. */
const keptSegments = 3;

/** Codec families that carry pictures (RFC 6381 sample entries). */
const videoCodecs = /^(avc[1-4]|hvc1|hev1|dvh1|dvhe|vp0?8|vp0?9|av01|mp4v|theora)/i;

export function parseHls(text: string, playlistUrl: string): HlsMaster | HlsMedia {
  const scan = scanHlsText(text);
  let manifest: M3u8Manifest;
  try {
    const parser = new Parser();
    parser.push(text);
    parser.end();
    manifest = parser.manifest;
  } catch (error) {
    throw new ManifestError(`the playlist could not be parsed (${error instanceof Error ? error.message : String(error)})`);
  }
  if (scan.variants > 0 || (manifest.playlists?.length ?? 0) > 0) {
    if (scan.segments > 0) throw new ManifestError("the playlist mixes variants and segments");
    return master(manifest, playlistUrl, scan.keys, scan.lowLatency);
  }
  return media(manifest, playlistUrl, scan.keys, scan.lowLatency, scan.endList);
}

function master(manifest: M3u8Manifest, base: string, keys: HlsKey[], lowLatency: boolean): HlsMaster {
  const variants = (manifest.playlists ?? []).map((p) => variant(p, base));
  variants.sort((a, b) => a.bandwidth - b.bandwidth);
  const groups = manifest.mediaGroups ?? {};
  const audio: HlsAudioRendition[] = [];
  for (const [groupId, renditions] of Object.entries(groups.AUDIO ?? {})) {
    // A rendition's codec is the audio part of CODECS on the variants that use its group.
    const codecs = variants.find((v) => v.audioGroup === groupId)?.codecs?.split(",").map((c) => c.trim()).filter((c) => !videoCodecs.test(c));
    for (const [name, r] of Object.entries(renditions)) {
      audio.push({
        groupId,
        url: r.uri ? resolveUri(r.uri, base) : undefined,
        name,
        ...(r.language ? { language: r.language } : {}),
        ...(codecs?.length ? { codecs: codecs.join(",") } : {}),
        ...(r.default !== undefined ? { default: r.default } : {}),
      });
    }
  }
  const subtitles: StreamingSubtitle[] = [];
  for (const renditions of Object.values(groups.SUBTITLES ?? {})) {
    for (const [name, r] of Object.entries(renditions)) {
      subtitles.push({ name, ...(r.language ? { language: r.language } : {}), ...(r.forced !== undefined ? { forced: r.forced } : {}) });
    }
  }
  return { kind: "master", variants, audio, subtitles, keys, lowLatency };
}

function variant(playlist: M3u8Playlist, base: string): HlsVariant {
  const a = playlist.attributes ?? {};
  const codecs = typeof a.CODECS === "string" ? a.CODECS : undefined;
  const width = positiveInt(a.RESOLUTION?.width);
  const height = positiveInt(a.RESOLUTION?.height);
  const hasVideo = width !== undefined || (codecs?.split(",").some((c) => videoCodecs.test(c.trim())) ?? true);
  const frameRate = typeof a["FRAME-RATE"] === "number" && a["FRAME-RATE"] > 0 ? a["FRAME-RATE"] : undefined;
  return {
    url: playlist.uri ? resolveUri(playlist.uri, base) : undefined,
    bandwidth: nonNegativeInt(a.BANDWIDTH) ?? 0,
    ...optional("averageBandwidth", nonNegativeInt(a["AVERAGE-BANDWIDTH"])),
    ...optional("width", width),
    ...optional("height", height),
    ...optional("frameRate", frameRate),
    ...optional("codecs", codecs),
    ...optional("videoRange", typeof a["VIDEO-RANGE"] === "string" ? a["VIDEO-RANGE"] : undefined),
    ...optional("audioGroup", typeof a.AUDIO === "string" ? a.AUDIO : undefined),
    hasVideo,
  };
}

function media(manifest: M3u8Manifest, base: string, keys: HlsKey[], lowLatency: boolean, endList: boolean): HlsMedia {
  let durationSeconds = 0;
  const firstSegments: HlsSegmentRef[] = [];
  for (const segment of manifest.segments) {
    const duration = Number.isFinite(segment.duration) && segment.duration! > 0 ? segment.duration! : 0;
    durationSeconds += duration;
    if (firstSegments.length >= keptSegments || !segment.uri) continue;
    const url = resolveUri(segment.uri, base);
    if (!url) continue;
    const initUrl = segment.map?.uri ? resolveUri(segment.map.uri, base) : undefined;
    const method = segment.key?.method;
    firstSegments.push({
      url,
      ...(initUrl ? { initUrl } : {}),
      ...(method && method !== "NONE" ? { encryption: method } : {}),
      durationSeconds: duration,
    });
  }
  return {
    kind: "media",
    segmentCount: manifest.segments.length,
    durationSeconds,
    endList: endList || manifest.endList === true,
    ...(manifest.playlistType ? { playlistType: manifest.playlistType } : {}),
    keys,
    lowLatency,
    firstSegments,
  };
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

function nonNegativeInt(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
