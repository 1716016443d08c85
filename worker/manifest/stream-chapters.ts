/**
 * Chapters a stream declares beside its renditions: a WebVTT chapters file (cues whose text is the chapter's title,
 * the HTML `<track kind="chapters">` format) named by a DASH text AdaptationSet with Role "chapters", or the chapter
 * list an HLS multivariant playlist names with EXT-X-SESSION-DATA DATA-ID="com.apple.hls.chapters" (Apple's JSON
 * chapters, or WebVTT when the file is one). The file is fetched by the caller through the manifest fetcher (SSRF
 * checks, deadline, byte cap) and parsed here in one linear pass, at most `maxChapterFileChars` of it and
 * `maxListedChapters` chapters: a million cues cost one bounded pass.
 */
import { maxListedChapters, maxTrackLabelLength, type Chapter } from "../../shared/shapes/tracks.ts";
import { readAttributeList } from "./hls-scan.ts";
import { maxChapterFileChars } from "./limits.ts";

/** Apple's DATA-ID for a chapter list (developer.apple.com: "Providing JSON chapters"). */
const hlsChaptersDataId = "com.apple.hls.chapters";
/** Lines of a playlist looked at for the chapter list (the session data sits among the first tags). */
const maxScannedLines = 4096;

/** The chapter list an HLS multivariant playlist names, resolved against the playlist's URL. */
export function hlsChapterUrl(master: string, base: string): string | undefined {
  let scanned = 0;
  for (let start = 0; start < master.length && scanned < maxScannedLines; scanned++) {
    const end = master.indexOf("\n", start);
    const line = master.slice(start, end < 0 ? master.length : end).trim();
    start = end < 0 ? master.length : end + 1;
    if (!line.startsWith("#EXT-X-SESSION-DATA:")) continue;
    let a: Map<string, string>;
    try { a = readAttributeList(line.slice("#EXT-X-SESSION-DATA:".length), "EXT-X-SESSION-DATA"); } catch { continue; }
    if (a.get("DATA-ID") !== hlsChaptersDataId || !a.get("URI")) continue;
    try { return new URL(a.get("URI")!, base).href; } catch { return undefined; }
  }
  return undefined;
}

/** Chapters from a chapter file: WebVTT when it says so, else Apple's JSON list; [] when neither reads. */
export function parseChapterFile(text: string): Chapter[] {
  if (text.length > maxChapterFileChars) return [];
  return /^\uFEFF?WEBVTT(?:[ \t\r\n]|$)/.test(text) ? webvttChapters(text) : jsonChapters(text);
}

const timing = /^(?:(\d{1,3}):)?(\d{2}):(\d{2})\.(\d{3})[ \t]+-->/;

/** WebVTT cues: each cue's start and the first line of its text (the chapter's title). */
export function webvttChapters(text: string): Chapter[] {
  const out: Chapter[] = [];
  let pendingStart: number | undefined;
  for (let start = 0; start < text.length && out.length < maxListedChapters;) {
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end < 0 ? text.length : end).replace(/\r$/, "");
    start = end < 0 ? text.length : end + 1;
    // Only the line's head is matched (anchored, fixed-width groups): no backtracking over a long line.
    const m = timing.exec(line.slice(0, 32));
    if (m) {
      pendingStart = Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4]) / 1000;
      continue;
    }
    if (pendingStart === undefined) continue;
    const title = line.trim().slice(0, maxTrackLabelLength);
    out.push({ start: pendingStart, ...(title ? { title } : {}) });
    pendingStart = undefined;
  }
  return sorted(out);
}

/** Apple's JSON chapters: [{ "start-time": seconds, "titles": [{ "title": ..., "language": ... }] }]. */
function jsonChapters(text: string): Chapter[] {
  let data: unknown;
  try { data = JSON.parse(text); } catch { return []; }
  if (!Array.isArray(data)) return [];
  const out: Chapter[] = [];
  for (const entry of data.slice(0, maxListedChapters) as unknown[]) {
    const e = entry as { "start-time"?: unknown; titles?: { title?: unknown }[] } | null;
    const start = Number(e?.["start-time"]);
    if (!Number.isFinite(start) || start < 0) continue;
    const title = Array.isArray(e?.titles) && typeof e.titles[0]?.title === "string" ? e.titles[0].title.trim().slice(0, maxTrackLabelLength) : "";
    out.push({ start: Math.round(start * 1000) / 1000, ...(title ? { title } : {}) });
  }
  return sorted(out);
}

function sorted(chapters: Chapter[]): Chapter[] {
  return chapters.sort((x, y) => x.start - y.start);
}
