/**
 * One linear pass over a playlist before m3u8-parser sees it. The parser's attribute splitting and trimming
 * are regexes that go quadratic on long malformed lines (a 64 kB EXT-X-STREAM-INF line of letters takes
 * 13 s), so every attribute list is checked here against RFC 8216's grammar with the bounds in limits.ts,
 * and counts that bound later work (segments, variants, renditions) are taken on the way.
 */
import { ManifestError } from "./manifest-error.ts";
import {
  maxAttributeNameChars, maxHlsLineChars, maxQuotedCommas, maxRenditions, maxSegments, maxVariants, maxWhitespaceRun,
} from "./limits.ts";

/** Tags whose value is an attribute list (RFC 8216 4.3, plus the low-latency and steering tags). */
const attributeTags = new Set([
  "EXT-X-STREAM-INF", "EXT-X-I-FRAME-STREAM-INF", "EXT-X-MEDIA", "EXT-X-KEY", "EXT-X-SESSION-KEY", "EXT-X-MAP",
  "EXT-X-SESSION-DATA", "EXT-X-DATERANGE", "EXT-X-START", "EXT-X-PART", "EXT-X-PART-INF", "EXT-X-SERVER-CONTROL",
  "EXT-X-PRELOAD-HINT", "EXT-X-RENDITION-REPORT", "EXT-X-SKIP", "EXT-X-CONTENT-STEERING", "EXT-X-DEFINE",
  "EXT-X-CUE-OUT-CONT",
]);

export interface HlsKey {
  method: string;
  keyFormat?: string;
}

export interface HlsScan {
  segments: number;
  variants: number;
  renditions: number;
  /** EXT-X-KEY / EXT-X-SESSION-KEY declarations other than METHOD=NONE, in order. */
  keys: HlsKey[];
  endList: boolean;
  /** LL-HLS: partial segments or a server that blocks playlist reloads. */
  lowLatency: boolean;
}

/** Throws ManifestError when the text is not a playlist we will parse; returns the counts otherwise. */
export function scanHlsText(text: string): HlsScan {
  const scan: HlsScan = { segments: 0, variants: 0, renditions: 0, keys: [], endList: false, lowLatency: false };
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let first = true;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, text.charCodeAt(end - 1) === 13 ? end - 1 : end);
    start = end + 1;
    if (line.length > maxHlsLineChars) throw new ManifestError(`a playlist line is longer than ${maxHlsLineChars} characters`);
    if (first) {
      if (line.trim() !== "#EXTM3U") throw new ManifestError("the playlist does not start with #EXTM3U");
      first = false;
      continue;
    }
    if (!line.startsWith("#EXT")) continue;
    const colon = line.indexOf(":");
    const tag = line.slice(1, colon < 0 ? line.length : colon);
    if (tag === "EXTINF" && ++scan.segments > maxSegments) throw new ManifestError(`the playlist has more than ${maxSegments} segments`);
    if (tag === "EXT-X-ENDLIST") scan.endList = true;
    if (!attributeTags.has(tag)) continue;
    const attributes = readAttributeList(colon < 0 ? "" : line.slice(colon + 1), tag);
    if (tag === "EXT-X-STREAM-INF" && ++scan.variants > maxVariants) throw new ManifestError(`the playlist has more than ${maxVariants} variants`);
    if (tag === "EXT-X-MEDIA" && ++scan.renditions > maxRenditions) throw new ManifestError(`the playlist has more than ${maxRenditions} renditions`);
    if (tag === "EXT-X-PART" || tag === "EXT-X-PART-INF" || (tag === "EXT-X-SERVER-CONTROL" && attributes.get("CAN-BLOCK-RELOAD") === "YES")) {
      scan.lowLatency = true;
    }
    if (tag === "EXT-X-KEY" || tag === "EXT-X-SESSION-KEY") {
      const method = attributes.get("METHOD") ?? "";
      if (method && method !== "NONE") {
        const keyFormat = attributes.get("KEYFORMAT");
        scan.keys.push({ method, ...(keyFormat ? { keyFormat } : {}) });
      }
    }
  }
  if (first) throw new ManifestError("the playlist is empty");
  return scan;
}

/**
 * Reads `NAME=VALUE(,NAME=VALUE)*` strictly and in one pass: names are [A-Z0-9-], quoted values end at the
 * next quote, unquoted values hold no whitespace, quotes or commas. Returns the values (quotes removed).
 */
export function readAttributeList(value: string, tag: string): Map<string, string> {
  const out = new Map<string, string>();
  const bad = (why: string) => new ManifestError(`malformed ${tag} attribute list: ${why}`);
  let i = 0;
  while (i < value.length) {
    let spaces = 0;
    while (value[i] === " " && spaces++ < maxWhitespaceRun) i++;
    const nameStart = i;
    while (i < value.length && /[A-Z0-9-]/.test(value[i]!)) i++;
    if (i === nameStart || i - nameStart > maxAttributeNameChars) throw bad("expected an attribute name");
    const name = value.slice(nameStart, i);
    if (value[i] !== "=") throw bad(`expected = after ${name}`);
    i++;
    let text: string;
    if (value[i] === '"') {
      const close = value.indexOf('"', i + 1);
      if (close < 0) throw bad(`unterminated quoted value of ${name}`);
      text = value.slice(i + 1, close);
      let commas = 0;
      let run = 0;
      for (let k = 0; k < text.length; k++) {
        const c = text.charCodeAt(k);
        if (c === 44 && ++commas > maxQuotedCommas) throw bad(`too many commas in ${name}`);
        run = c === 32 || c === 9 ? run + 1 : 0;
        if (run > maxWhitespaceRun) throw bad(`too much whitespace in ${name}`);
      }
      i = close + 1;
    } else {
      const valueStart = i;
      while (i < value.length && value[i] !== ",") {
        const c = value[i]!;
        if (c === '"' || c === " " || c === "\t") throw bad(`unexpected character in the value of ${name}`);
        i++;
      }
      text = value.slice(valueStart, i);
    }
    out.set(name, text);
    if (i === value.length) break;
    if (value[i] !== ",") throw bad(`expected , after ${name}`);
    i++;
  }
  return out;
}
