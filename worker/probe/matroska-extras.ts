import { uint, vint } from "./tail-duration.ts";
import { children, type Element } from "./matroska-elements.ts";
import { bcp47Language } from "../../shared/media/languages.ts";
import {
  maxListedChapters, maxListedTracks, maxTrackLabelLength,
  type AudioTrack, type Chapter, type MediaTracks, type TextTrack, type TrackFacts,
} from "../../shared/shapes/tracks.ts";

/** What matroska-tracks.ts already read of each TrackEntry, in order. */
export interface MatroskaTrackBasics {
  kind: "video" | "audio" | "other";
  codec?: string;
  width?: number;
  height?: number;
  channels?: number;
}

const ids = {
  trackEntry: 0xae, trackType: 0x83, codecId: 0x86, language: 0x22b59c, languageBcp47: 0x22b59d, name: 0x536e,
  flagDefault: 0x88, flagForced: 0x55aa, flagHearingImpaired: 0x55ab, flagVisualImpaired: 0x55ac,
  flagTextDescriptions: 0x55ad, flagOriginal: 0x55ae, flagCommentary: 0x55af, contentEncodings: 0x6d80,
  contentEncoding: 0x6240, contentEncType: 0x5033, contentEncryption: 0x5035,
  editionEntry: 0x45b9, chapterAtom: 0xb6, chapterTimeStart: 0x91, chapterFlagHidden: 0x98, chapterDisplay: 0x80, chapString: 0x85,
} as const;

/** Matroska subtitle CodecIDs as the API names the formats (ffprobe: subrip, ass, webvtt, hdmv_pgs_subtitle, dvb_subtitle). */
const textFormats: Readonly<Record<string, string>> = {
  "S_TEXT/UTF8": "srt", "S_TEXT/ASCII": "srt", "S_TEXT/ASS": "ass", "S_TEXT/SSA": "ssa", "S_ASS": "ass", "S_SSA": "ssa",
  "S_TEXT/WEBVTT": "webvtt", "D_WEBVTT/SUBTITLES": "webvtt", "D_WEBVTT/CAPTIONS": "webvtt", "D_WEBVTT/DESCRIPTIONS": "webvtt",
  "D_WEBVTT/METADATA": "webvtt", "S_HDMV/PGS": "pgs", "S_HDMV/TEXTST": "hdmv-text", "S_DVBSUB": "dvb-subtitle",
  "S_VOBSUB": "vobsub", "S_KATE": "kate", "S_TEXT/USF": "usf", "S_IMAGE/BMP": "bmp",
};

function text(b: Uint8Array, start: number, end: number): string {
  return new TextDecoder().decode(b.subarray(start, Math.min(end, start + maxTrackLabelLength * 4))).replace(/\0+$/, "").slice(0, maxTrackLabelLength);
}

/**
 * Languages, dispositions and encryption of the Tracks element's entries (FlagDefault defaults to 1 and
 * Language to `eng`, as the Matroska specification says and ffmpeg reads them), as the API's track lists.
 */
export function matroskaTrackFacts(b: Uint8Array, basics: readonly MatroskaTrackBasics[]): TrackFacts {
  const tracks: MediaTracks = { video: [], audio: [], text: [] };
  let encrypted = false;
  let truncated = false;
  let index = 0;
  for (const entry of children(b, 0, b.length)) {
    if (entry.id !== ids.trackEntry) continue;
    const known = basics[index];
    index += 1;
    let type = 0;
    let codecId = "";
    let language = "eng";
    let bcp47: string | undefined;
    let name: string | undefined;
    const flags = { default: true, forced: false, hearing: false, visual: false, descriptions: false, original: false, commentary: false };
    for (const f of children(b, entry.start, entry.end)) {
      const flag = () => uint(b, f.start, f.end - f.start) === 1;
      switch (f.id) {
        case ids.trackType: type = uint(b, f.start, f.end - f.start); break;
        case ids.codecId: codecId = text(b, f.start, f.end); break;
        case ids.language: language = text(b, f.start, f.end); break;
        case ids.languageBcp47: bcp47 = text(b, f.start, f.end); break;
        case ids.name: name = text(b, f.start, f.end) || undefined; break;
        case ids.flagDefault: flags.default = flag(); break;
        case ids.flagForced: flags.forced = flag(); break;
        case ids.flagHearingImpaired: flags.hearing = flag(); break;
        case ids.flagVisualImpaired: flags.visual = flag(); break;
        case ids.flagTextDescriptions: flags.descriptions = flag(); break;
        case ids.flagOriginal: flags.original = flag(); break;
        case ids.flagCommentary: flags.commentary = flag(); break;
        case ids.contentEncodings: if (hasEncryption(b, f)) encrypted = true; break;
      }
    }
    const lang = bcp47Language(bcp47 ?? language);
    const base = { ...(lang ? { language: lang } : {}), default: flags.default, ...(name ? { name } : {}) };
    if (type === 1) {
      if (tracks.video.length >= maxListedTracks) { truncated = true; continue; }
      const { name: _name, ...videoBase } = base;
      tracks.video.push({ ...(known?.codec ? { codec: known.codec } : {}), ...(known?.width ? { width: known.width } : {}), ...(known?.height ? { height: known.height } : {}), ...videoBase });
    } else if (type === 2) {
      if (tracks.audio.length >= maxListedTracks) { truncated = true; continue; }
      const role: AudioTrack["role"] = flags.visual || flags.descriptions ? "description" : flags.commentary ? "commentary" : flags.original ? "main" : undefined;
      tracks.audio.push({ ...(known?.codec ? { codec: known.codec } : {}), ...base, ...(role ? { role } : {}), ...(known?.channels ? { channels: known.channels } : {}) });
    } else if (type === 0x11 || codecId.startsWith("S_") || codecId.startsWith("D_WEBVTT")) {
      if (tracks.text.length >= maxListedTracks) { truncated = true; continue; }
      const format = textFormats[codecId] ?? codecId.replace(/^[SD]_/, "").toLowerCase().slice(0, 32);
      const kind: TextTrack["kind"] = codecId === "D_WEBVTT/CAPTIONS" || flags.hearing ? "captions"
        : codecId === "D_WEBVTT/DESCRIPTIONS" || flags.descriptions ? "descriptions"
        : codecId === "D_WEBVTT/METADATA" ? "metadata" : flags.forced ? "forced" : "subtitles";
      tracks.text.push({ kind, format, ...base, ...(flags.forced ? { forced: true } : {}) });
    }
  }
  return {
    tracks: truncated ? { ...tracks, truncated } : tracks,
    // WebM encryption (ContentEncryption, AES-CTR) names no key system: the page's player knows its licence server.
    ...(encrypted ? { protection: { encrypted: true, scheme: "webm", keySystems: [] } } : {}),
  };
}

function hasEncryption(b: Uint8Array, encodings: Element): boolean {
  for (const encoding of children(b, encodings.start, encodings.end)) {
    if (encoding.id !== ids.contentEncoding) continue;
    for (const f of children(b, encoding.start, encoding.end)) {
      if (f.id === ids.contentEncryption || (f.id === ids.contentEncType && uint(b, f.start, f.end - f.start) === 1)) return true;
    }
  }
  return false;
}

/**
 * The first edition's visible chapters (ChapterAtom start in nanoseconds, first ChapString as title), in start
 * order, cut at the shared limit: a million-atom table costs one linear walk of an element the caller bounded.
 */
export function matroskaChapters(b: Uint8Array): Chapter[] {
  const chapters: Chapter[] = [];
  for (const edition of children(b, 0, b.length)) {
    if (edition.id !== ids.editionEntry) continue;
    for (const atom of children(b, edition.start, edition.end)) {
      if (atom.id !== ids.chapterAtom) continue;
      if (chapters.length >= maxListedChapters) break;
      let start: number | undefined;
      let title: string | undefined;
      let hidden = false;
      for (const f of children(b, atom.start, atom.end)) {
        if (f.id === ids.chapterTimeStart) start = uint(b, f.start, f.end - f.start);
        if (f.id === ids.chapterFlagHidden) hidden = uint(b, f.start, f.end - f.start) === 1;
        if (f.id === ids.chapterDisplay && title === undefined) {
          for (const d of children(b, f.start, f.end)) if (d.id === ids.chapString) { title = text(b, d.start, d.end); break; }
        }
      }
      if (start !== undefined && !hidden) chapters.push({ start: Math.round(start / 1e6) / 1000, ...(title ? { title } : {}) });
    }
    break; // the default (first) edition
  }
  return chapters.sort((a, b) => a.start - b.start);
}
