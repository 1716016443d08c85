/**
 * An HLS playlist parsed into a model of what ffmpeg 5.1's hls demuxer reads (libavformat/hls.c), and nothing
 * else. The origin's bytes never reach ffmpeg: hls-serialise.ts writes a new playlist from this model, so a URI
 * the model does not hold cannot be in it. The parse refuses (CORRUPT_MEDIA) what ffmpeg might read differently:
 * ffmpeg ends a line at LF, CR or NUL, so a CR anywhere but right before an LF, a NUL or another control
 * character refuses the playlist, as do duplicate, escaped or lowercase attributes (hls-attributes.ts) in any
 * tag, dropped ones included. One linear pass; lines and attribute lists are bounded.
 */
import { RunnerError } from "../errors.ts";
import { parseAttributeList, type AttributeValue } from "./hls-attributes.ts";

/** What a URI is for: the proxy serves playlists re-serialised, keys whole and media by Range. */
export type UriRole = "playlist" | "segment" | "init" | "key";

/** Longer than any real tag or URI; ffmpeg's own line buffer is 4 KiB (MAX_URL_SIZE). */
export const maxPlaylistLineChars = 16 * 1024;
/** Longest quoted value written back (GROUP-ID, NAME, LANGUAGE, ...). */
export const maxQuotedValueChars = 256;

export interface ByteRange {
  length: number;
  offset?: number;
}

export type HlsItem =
  | { kind: "version" | "target-duration" | "media-sequence" | "discontinuity-sequence"; value: number }
  | { kind: "playlist-type"; value: "VOD" | "EVENT" }
  | { kind: "independent-segments" | "endlist" | "discontinuity" }
  | { kind: "start"; timeOffset: number }
  | { kind: "program-date-time"; value: string }
  | { kind: "key"; method: "NONE" | "AES-128" | "SAMPLE-AES"; uri?: URL; iv?: string }
  | { kind: "map"; uri: URL; byteRange?: ByteRange }
  | { kind: "media"; type: "AUDIO" | "VIDEO" | "SUBTITLES"; text: MediaText; flags: MediaFlags; uri?: URL }
  | { kind: "variant"; bandwidth: number; groups: VariantGroups; uri: URL }
  | { kind: "segment"; duration: number; byteRange?: ByteRange; uri: URL };

/** Quoted attributes of EXT-X-MEDIA that ffmpeg reads, in the order they are written back. */
export const mediaTextAttributes = ["GROUP-ID", "NAME", "LANGUAGE", "ASSOC-LANGUAGE", "CHARACTERISTICS"] as const;
export type MediaText = Partial<Record<(typeof mediaTextAttributes)[number], string>>;
export const mediaFlagAttributes = ["DEFAULT", "FORCED"] as const;
export type MediaFlags = Partial<Record<(typeof mediaFlagAttributes)[number], boolean>>;
/** Rendition groups of EXT-X-STREAM-INF that ffmpeg reads. */
export const variantGroupAttributes = ["AUDIO", "VIDEO", "SUBTITLES"] as const;
export type VariantGroups = Partial<Record<(typeof variantGroupAttributes)[number], string>>;

export interface HlsPlaylist {
  /** A master playlist (variants and renditions) rather than a media playlist (segments). */
  master: boolean;
  items: HlsItem[];
}

/**
 * Tags whose value is an attribute list but which are not read for one frame (I-frame playlists, session data
 * and keys, low-latency parts and hints, rendition reports, ...): parsed, so that a hostile list refuses the
 * playlist, then dropped.
 */
const droppedAttributeTags = new Set([
  "EXT-X-I-FRAME-STREAM-INF", "EXT-X-SESSION-KEY", "EXT-X-SESSION-DATA", "EXT-X-PRELOAD-HINT", "EXT-X-PART",
  "EXT-X-PART-INF", "EXT-X-RENDITION-REPORT", "EXT-X-SERVER-CONTROL", "EXT-X-SKIP", "EXT-X-DATERANGE",
  "EXT-X-CONTENT-STEERING", "EXT-X-DEFINE",
]);

function corrupt(reason: string): RunnerError {
  return new RunnerError("CORRUPT_MEDIA", `the playlist was refused: ${reason}`);
}

export function parseHlsPlaylist(text: string, base: URL): HlsPlaylist {
  const items: HlsItem[] = [];
  let sawHeader = false;
  let variants = 0;
  let segments = 0;
  /** EXT-X-STREAM-INF or EXTINF (with its BYTERANGE) waiting for the URI line they describe. */
  let pendingVariant: { bandwidth: number; groups: VariantGroups } | undefined;
  let pendingSegment: { duration: number; byteRange?: ByteRange } | undefined;
  let pendingRange: ByteRange | undefined;
  let lineNumber = 0;
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const rawEnd = text.charCodeAt(end - 1) === 13 && end > start ? end - 1 : end;
    const raw = text.slice(start, rawEnd);
    start = end + 1;
    lineNumber++;
    if (raw.length > maxPlaylistLineChars) throw corrupt(`line ${lineNumber} is longer than ${maxPlaylistLineChars} characters`);
    checkCharacters(raw, lineNumber);
    const line = raw.trim();
    if (line === "") continue;
    if (!sawHeader) {
      if (line !== "#EXTM3U") throw corrupt("it does not start with #EXTM3U");
      sawHeader = true;
      continue;
    }
    if (!line.startsWith("#")) {
      const uri = resolve(line, base);
      if (pendingVariant) {
        items.push({ kind: "variant", ...pendingVariant, uri });
        pendingVariant = undefined;
        variants++;
      } else if (pendingSegment) {
        items.push({ kind: "segment", ...pendingSegment, uri });
        pendingSegment = undefined;
        segments++;
      } else {
        throw corrupt(`line ${lineNumber} is a URI with no EXTINF or EXT-X-STREAM-INF before it`);
      }
      continue;
    }
    if (!line.startsWith("#EXT")) continue; // a comment
    const colon = line.indexOf(":");
    const tag = line.slice(1, colon < 0 ? line.length : colon);
    const value = colon < 0 ? undefined : line.slice(colon + 1);
    const item = parseTag(tag, value, base, lineNumber);
    if (item === undefined) continue;
    if (item === "EXTM3U") throw corrupt(`line ${lineNumber} repeats #EXTM3U`);
    if (pendingSegment && isSegmentState(item)) {
      // Real playlists put these between EXTINF and the URI too; ffmpeg applies them when the URI comes, so
      // writing them before the segment means the same.
      items.push(item);
      continue;
    }
    if (pendingVariant || (pendingSegment && item.kind !== "byterange")) {
      // ffmpeg would tie the pending tag to a later URI across this one: refuse instead of guessing.
      throw corrupt(`line ${lineNumber} comes between a tag and the URI it describes`);
    }
    if (item.kind === "byterange") {
      if (pendingRange || pendingSegment?.byteRange) throw corrupt(`line ${lineNumber} repeats EXT-X-BYTERANGE`);
      if (pendingSegment) pendingSegment.byteRange = item.range;
      else pendingRange = item.range;
    } else if (item.kind === "extinf") {
      pendingSegment = { duration: item.duration, ...(pendingRange ? { byteRange: pendingRange } : {}) };
      pendingRange = undefined;
    } else if (item.kind === "stream-inf") {
      pendingVariant = { bandwidth: item.bandwidth, groups: item.groups };
    } else {
      items.push(item);
    }
  }
  if (!sawHeader) throw corrupt("it does not start with #EXTM3U");
  if (pendingVariant || pendingSegment || pendingRange) throw corrupt("it ends with a tag whose URI is missing");
  if (variants > 0 && segments > 0) throw corrupt("it mixes variants and media segments");
  return { master: variants > 0 || items.some((item) => item.kind === "media"), items };
}

/** Tags that set state for the next segment: allowed between an EXTINF and its URI. */
function isSegmentState(item: TagItem): item is Extract<HlsItem, { kind: "discontinuity" | "program-date-time" | "key" | "map" }> {
  return typeof item === "object" && (item.kind === "discontinuity" || item.kind === "program-date-time" || item.kind === "key" || item.kind === "map");
}

/** Only tab among the C0 controls (and DEL): ffmpeg ends a line at CR and NUL, which LF-splitting would not. */
function checkCharacters(line: string, lineNumber: number): void {
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (code >= 0x20 && code !== 0x7f) continue;
    if (code === 9) continue;
    if (code === 13) throw corrupt(`line ${lineNumber} holds a CR that does not end the line`);
    if (code === 0) throw corrupt(`line ${lineNumber} holds a NUL`);
    throw corrupt(`line ${lineNumber} holds a control character`);
  }
}

type TagItem =
  | HlsItem
  | { kind: "byterange"; range: ByteRange }
  | { kind: "extinf"; duration: number }
  | { kind: "stream-inf"; bandwidth: number; groups: VariantGroups }
  | "EXTM3U";

function parseTag(tag: string, value: string | undefined, base: URL, line: number): TagItem | undefined {
  const need = (): string => {
    if (value === undefined || value === "") throw corrupt(`line ${line}: #${tag} has no value`);
    return value;
  };
  const attributes = () => parseAttributeList(need());
  switch (tag) {
    case "EXTM3U":
      return "EXTM3U";
    case "EXT-X-VERSION":
      return { kind: "version", value: integer(need(), tag) };
    case "EXT-X-TARGETDURATION":
      return { kind: "target-duration", value: integer(need(), tag) };
    case "EXT-X-MEDIA-SEQUENCE":
      return { kind: "media-sequence", value: integer(need(), tag) };
    case "EXT-X-DISCONTINUITY-SEQUENCE":
      return { kind: "discontinuity-sequence", value: integer(need(), tag) };
    case "EXT-X-PLAYLIST-TYPE":
      return { kind: "playlist-type", value: oneOf(need(), ["VOD", "EVENT"] as const, tag) };
    case "EXT-X-INDEPENDENT-SEGMENTS":
      return { kind: "independent-segments" };
    case "EXT-X-ENDLIST":
      return { kind: "endlist" };
    case "EXT-X-DISCONTINUITY":
      return { kind: "discontinuity" };
    case "EXT-X-PROGRAM-DATE-TIME": {
      const date = need();
      if (!/^\d{4}-\d{2}-\d{2}T[\d:.]{1,32}(?:Z|[+-]\d{2}(?::?\d{2})?)?$/.test(date)) throw corrupt(`line ${line}: #${tag} is not a date`);
      return { kind: "program-date-time", value: date };
    }
    case "EXT-X-START":
      return { kind: "start", timeOffset: decimal(bare(required(attributes(), "TIME-OFFSET", tag), tag), tag, true) };
    case "EXTINF": {
      const text = need();
      const comma = text.indexOf(",");
      // The title after the comma is not read for a frame and is not written back.
      return { kind: "extinf", duration: decimal(comma < 0 ? text : text.slice(0, comma), tag, false) };
    }
    case "EXT-X-BYTERANGE":
      return { kind: "byterange", range: byteRange(need(), tag) };
    case "EXT-X-KEY": {
      const list = attributes();
      const method = oneOf(bare(required(list, "METHOD", tag), tag), ["NONE", "AES-128", "SAMPLE-AES"] as const, tag);
      const keyFormat = list.get("KEYFORMAT");
      // A DRM system's key (FairPlay, Widevine...): ffmpeg 5.1 cannot use it; its URI must not reach it either.
      if (keyFormat && quoted(keyFormat, tag) !== "identity") return undefined;
      const uri = list.get("URI");
      const iv = list.get("IV");
      if (method !== "NONE" && !uri) throw corrupt(`line ${line}: #${tag} has no URI`);
      if (iv && !/^0[xX][0-9a-fA-F]{1,32}$/.test(bare(iv, tag))) throw corrupt(`line ${line}: #${tag} has an invalid IV`);
      return {
        kind: "key", method,
        ...(uri && method !== "NONE" ? { uri: quotedUri(uri, tag, base) } : {}),
        ...(iv && method !== "NONE" ? { iv: iv.value } : {}),
      };
    }
    case "EXT-X-MAP": {
      const list = attributes();
      const range = list.get("BYTERANGE");
      return { kind: "map", uri: quotedUri(required(list, "URI", tag), tag, base), ...(range ? { byteRange: byteRange(quoted(range, tag), tag) } : {}) };
    }
    case "EXT-X-MEDIA": {
      const list = attributes();
      const type = bare(required(list, "TYPE", tag), tag);
      required(list, "GROUP-ID", tag);
      if (type === "CLOSED-CAPTIONS") return undefined; // carried inside the video; no URI
      const text: MediaText = {};
      for (const name of mediaTextAttributes) {
        const attribute = list.get(name);
        if (attribute) text[name] = quoted(attribute, tag);
      }
      const flags: MediaFlags = {};
      for (const name of mediaFlagAttributes) {
        const attribute = list.get(name);
        if (attribute) flags[name] = oneOf(bare(attribute, tag), ["YES", "NO"] as const, tag) === "YES";
      }
      const uri = list.get("URI");
      return {
        kind: "media", type: oneOf(type, ["AUDIO", "VIDEO", "SUBTITLES"] as const, tag), text, flags,
        ...(uri ? { uri: quotedUri(uri, tag, base) } : {}),
      };
    }
    case "EXT-X-STREAM-INF": {
      const list = attributes();
      const groups: VariantGroups = {};
      for (const name of variantGroupAttributes) {
        const attribute = list.get(name);
        if (attribute) groups[name] = quoted(attribute, tag);
      }
      return { kind: "stream-inf", bandwidth: integer(bare(required(list, "BANDWIDTH", tag), tag), tag), groups };
    }
    default:
      // Known attribute-list tags, and unknown tags that look like one, are parsed for hostile lists, then dropped.
      if (droppedAttributeTags.has(tag) || (value !== undefined && value.includes("="))) parseAttributeList(need());
      return undefined;
  }
}

function required(list: Map<string, AttributeValue>, name: string, tag: string): AttributeValue {
  const attribute = list.get(name);
  if (!attribute) throw corrupt(`#${tag} has no ${name}`);
  return attribute;
}

function bare(attribute: AttributeValue, tag: string): string {
  if (attribute.quoted) throw corrupt(`#${tag} quotes a value that must be bare`);
  return attribute.value;
}

/**
 * A quoted value as written back: quotes, backslashes and controls are already refused; only the length is
 * left (URIs are not written back, so only the line bounds them).
 */
function quoted(attribute: AttributeValue, tag: string, maxChars = maxQuotedValueChars): string {
  if (!attribute.quoted) throw corrupt(`#${tag} has a bare value that must be quoted`);
  if (attribute.value.length > maxChars) throw corrupt(`#${tag} has a value longer than ${maxChars} characters`);
  return attribute.value;
}

const quotedUri = (attribute: AttributeValue, tag: string, base: URL) => resolve(quoted(attribute, tag, maxPlaylistLineChars), base);

function oneOf<T extends string>(value: string, allowed: readonly T[], tag: string): T {
  const found = allowed.find((candidate) => candidate === value);
  if (found === undefined) throw corrupt(`#${tag} has the unknown value ${value.slice(0, 32)}`);
  return found;
}

function integer(value: string, tag: string): number {
  if (!/^\d{1,15}$/.test(value)) throw corrupt(`#${tag} is not a decimal integer`);
  return Number(value);
}

function decimal(value: string, tag: string, signed: boolean): number {
  if (!(signed ? /^-?\d{1,12}(?:\.\d{1,12})?$/ : /^\d{1,12}(?:\.\d{1,12})?$/).test(value)) throw corrupt(`#${tag} is not a decimal number`);
  return Number(value);
}

function byteRange(value: string, tag: string): ByteRange {
  const at = value.indexOf("@");
  const length = integer(at < 0 ? value : value.slice(0, at), tag);
  return at < 0 ? { length } : { length, offset: integer(value.slice(at + 1), tag) };
}

/** An absolute http(s) URL; any other scheme (file:, data:, concat:, ...) refuses the playlist. */
function resolve(uri: string, base: URL): URL {
  let url: URL;
  try {
    url = new URL(uri, base);
  } catch {
    throw new RunnerError("CORRUPT_MEDIA", "the playlist holds an invalid URI");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RunnerError("SSRF_BLOCKED", `the playlist names a ${url.protocol} URI; only http: and https: are fetched`);
  }
  return url;
}
