import { ascii, u16be, u32be } from "../bytes/read-bytes.ts";
import { firstMp4Box, mp4Boxes, mp4Child, mp4Path, type Mp4Box as Box, type Mp4Parent } from "../../shared/media/mp4-box-reader.ts";
import { mdhdLanguage } from "../../shared/media/languages.ts";
import { keySystemOfId } from "../../shared/media/key-systems.ts";
import {
  maxKeySystems, maxListedChapters, maxListedTracks, maxTrackLabelLength,
  type AudioTrack, type Chapter, type MediaTracks, type Protection, type TextTrack, type TrackFacts,
} from "../../shared/shapes/tracks.ts";

/** What mp4-boxes.ts already read of each trak, in moov order (codec names, channels, sizes, cover art). */
export interface Mp4TrackBasics {
  kind: "video" | "audio" | "other";
  codec?: string;
  channels?: number;
  width?: number;
  height?: number;
  stillPicture?: boolean;
}

/** Sample entries of Common Encryption (ISO/IEC 23001-7): the codec is in sinf/frma. */
const protectedEntries: ReadonlySet<string> = new Set(["encv", "enca", "enct", "encs", "encm"]);
/** Handlers of timed text: QuickTime text and subtitles, MPEG-4 subtitles, closed captions. */
const textHandlers: ReadonlySet<string> = new Set(["text", "sbtl", "subt", "clcp"]);
/** chpl stores start times in 100 ns units. */
const chplTicksPerSecond = 10_000_000;

/** DASH role (urn:mpeg:dash:role:2011) and HTML kind values of an MP4 `kind` box, as a text kind or an audio role. */
const textKindOf: Readonly<Record<string, TextTrack["kind"]>> = {
  caption: "captions", captions: "captions", subtitle: "subtitles", subtitles: "subtitles", "forced-subtitle": "forced",
  description: "descriptions", descriptions: "descriptions", chapters: "chapters", metadata: "metadata",
};
const audioRoleOf: Readonly<Record<string, NonNullable<AudioTrack["role"]>>> = {
  main: "main", dub: "dub", commentary: "commentary", description: "description", "main-desc": "description",
  descriptions: "description", alternate: "alternate", translation: "dub",
};

/** The original format of a protected sample entry (sinf/frma), or undefined for a clear one. */
export function originalFormat(b: Uint8Array, entry: Box, handler: string): string | undefined {
  if (!protectedEntries.has(entry.type)) return undefined;
  const sinf = mp4Child(b, entry, "sinf", { from: entryChildren(b, entry, handler) });
  const frma = sinf && mp4Child(b, sinf, "frma");
  return frma ? ascii(b, frma.start, 4) : undefined;
}

/** Where a sample entry's child boxes start: after the visual (78) or audio (28, QuickTime v1/v2 more) fields. */
function entryChildren(b: Uint8Array, entry: Box, handler: string): number {
  if (handler === "vide") return entry.start + 78;
  if (handler === "soun") {
    const version = u16be(b, entry.start + 8) ?? 0;
    return entry.start + 28 + (version === 1 ? 16 : version === 2 ? 36 : 0);
  }
  return entry.start + 8;
}

/**
 * Tracks (with language, default, kind and role), chapters (`chpl`) and Common Encryption (`encv`/`enca` with
 * `sinf`/`schm`, `pssh` system IDs) of a parsed `moov` body. Linear in the moov's bytes (at most its size cap);
 * lists are cut at the shared limits.
 */
export function readMp4TrackFacts(b: Uint8Array, basics: readonly Mp4TrackBasics[]): TrackFacts {
  const moov: Mp4Parent = { start: 0, end: b.length };
  const tracks: MediaTracks = { video: [], audio: [], text: [] };
  const systems = new Set<string>();
  let pssh = 0;
  let scheme: string | undefined;
  let encrypted = false;
  let truncated = false;
  const chapterTrackIds = new Set<number>();
  const traks: { box: Box; basics: Mp4TrackBasics | undefined; id: number | undefined }[] = [];
  let index = 0;
  for (const box of mp4Boxes(b, moov)) {
    if (box.type === "pssh") {
      pssh += 1;
      if (systems.size < maxKeySystems) systems.add(keySystemOfId(hex(b, box.start + 4, 16)));
    }
    if (box.type !== "trak") continue;
    const tkhd = mp4Child(b, box, "tkhd");
    const id = tkhd ? u32be(b, tkhd.start + (b[tkhd.start] === 1 ? 20 : 12)) : undefined;
    const tref = mp4Child(b, box, "tref");
    const chap = tref && mp4Child(b, tref, "chap");
    // tref/chap lists the track IDs of the QuickTime chapter track(s) this track uses.
    if (chap) for (let o = chap.start; o + 4 <= chap.end && chapterTrackIds.size < maxListedTracks; o += 4) chapterTrackIds.add(u32be(b, o) ?? 0);
    traks.push({ box, basics: basics[index], id });
    index += 1;
  }
  for (const { box, basics: known, id } of traks) {
    const hdlr = mp4Path(b, box, ["mdia", "hdlr"]);
    const handler = hdlr ? ascii(b, hdlr.start + 8, 4) : "";
    const mdhd = mp4Path(b, box, ["mdia", "mdhd"]);
    const language = mdhd ? mdhdLanguage(u16be(b, mdhd.start + (b[mdhd.start] === 1 ? 32 : 20)) ?? 0) : undefined;
    const tkhd = mp4Child(b, box, "tkhd");
    // tkhd flag 1 is track_enabled: what ffmpeg writes for, and reads as, the default disposition.
    const enabled = tkhd ? ((b[tkhd.start + 3] ?? 0) & 1) === 1 : undefined;
    const kinds = kindValues(b, box);
    const stsd = mp4Path(b, box, ["mdia", "minf", "stbl", "stsd"]);
    const entry = stsd && firstMp4Box(b, stsd, { from: stsd.start + 8 });
    let code = entry?.type;
    if (entry && protectedEntries.has(entry.type)) {
      encrypted = true;
      const at = entryChildren(b, entry, handler);
      code = originalFormat(b, entry, handler) ?? entry.type;
      const sinf = mp4Child(b, entry, "sinf", { from: at });
      const schm = sinf && mp4Child(b, sinf, "schm");
      if (schm && !scheme) scheme = ascii(b, schm.start + 4, 4).replace(/[^\x20-\x7e]/g, "").trim() || undefined;
    }
    const base = { ...(language ? { language } : {}), ...(enabled !== undefined ? { default: enabled } : {}) };
    if (handler === "vide" && !known?.stillPicture) {
      if (tracks.video.length >= maxListedTracks) { truncated = true; continue; }
      tracks.video.push({ ...(known?.codec ? { codec: known.codec } : {}), ...(known?.width ? { width: known.width } : {}), ...(known?.height ? { height: known.height } : {}), ...base });
    } else if (handler === "soun") {
      if (tracks.audio.length >= maxListedTracks) { truncated = true; continue; }
      const role = kinds.map((k) => audioRoleOf[k]).find((r) => r !== undefined);
      tracks.audio.push({ ...(known?.codec ? { codec: known.codec } : {}), ...base, ...(role ? { role } : {}), ...(known?.channels ? { channels: known.channels } : {}) });
    } else if (textHandlers.has(handler) || (code && textFormats[code])) {
      if (tracks.text.length >= maxListedTracks) { truncated = true; continue; }
      const format = (code && textFormats[code]) ?? (code ?? handler).trim().toLowerCase();
      const declared = kinds.map((k) => textKindOf[k]).find((k) => k !== undefined);
      const kind: TextTrack["kind"] = id !== undefined && chapterTrackIds.has(id) ? "chapters"
        : declared ?? (handler === "clcp" || format === "c608" || format === "c708" ? "captions" : "subtitles");
      tracks.text.push({ kind, format, ...base, ...(kind === "forced" || kinds.includes("forced-subtitle") ? { forced: true } : {}) });
    }
  }
  const chapters = readChpl(b, moov);
  const protection: Protection | undefined = encrypted || pssh > 0
    ? { encrypted: true, ...(scheme ? { scheme } : {}), keySystems: [...systems] }
    : undefined;
  return {
    tracks: truncated ? { ...tracks, truncated } : tracks,
    ...(chapters.length > 0 ? { chapters } : {}),
    ...(protection ? { protection } : {}),
  };
}

/** Sample-entry codes of timed text and captions, as the API names the formats. */
const textFormats: Readonly<Record<string, string>> = {
  tx3g: "tx3g", wvtt: "wvtt", stpp: "stpp", c608: "c608", c708: "c708", text: "text", sbtt: "sbtt", stxt: "stxt",
};

/** Values of the trak's udta/kind boxes (full box: scheme URI then value, both null-terminated). */
function kindValues(b: Uint8Array, trak: Box): string[] {
  const udta = mp4Child(b, trak, "udta");
  if (!udta) return [];
  const out: string[] = [];
  for (const kind of mp4Boxes(b, udta)) {
    if (kind.type !== "kind" || out.length >= 8) continue;
    const [, value] = cStrings(b, kind.start + 4, kind.end, 2);
    if (value) out.push(value.toLowerCase());
  }
  return out;
}

/** Up to `count` null-terminated Latin-1 strings from start (bounded by end and the label length). */
function cStrings(b: Uint8Array, start: number, end: number, count: number): string[] {
  const out: string[] = [];
  let o = start;
  for (let n = 0; n < count && o < end; n++) {
    let s = "";
    while (o < end && b[o] !== 0) { if (s.length < maxTrackLabelLength) s += String.fromCharCode(b[o]!); o += 1; }
    out.push(s);
    o += 1;
  }
  return out;
}

/** Nero chapters (moov/udta/chpl): start in 100 ns units, a length-prefixed UTF-8 title; at most 255 entries. */
function readChpl(b: Uint8Array, moov: Mp4Parent): Chapter[] {
  const chpl = mp4Path(b, moov, ["udta", "chpl"]);
  if (!chpl) return [];
  const version = b[chpl.start] ?? 0;
  let o = chpl.start + 4 + (version === 1 ? 4 : 0);
  const count = b[o] ?? 0;
  o += 1;
  const chapters: Chapter[] = [];
  const decoder = new TextDecoder();
  for (let i = 0; i < count && chapters.length < maxListedChapters && o + 9 <= chpl.end; i++) {
    const ticks = (u32be(b, o) ?? 0) * 2 ** 32 + (u32be(b, o + 4) ?? 0);
    const length = b[o + 8] ?? 0;
    const title = decoder.decode(b.subarray(o + 9, Math.min(o + 9 + length, chpl.end))).slice(0, maxTrackLabelLength);
    chapters.push({ start: Math.round((ticks / chplTicksPerSecond) * 1000) / 1000, ...(title ? { title } : {}) });
    o += 9 + length;
  }
  return chapters;
}

function hex(b: Uint8Array, o: number, length: number): string {
  let s = "";
  for (let i = o; i < o + length && i < b.length; i++) s += b[i]!.toString(16).padStart(2, "0");
  return s;
}

/** Most bytes of chapter-track samples read (titles are a few dozen bytes each). */
const maxChapterSampleBytes = 64 * 1024;

interface ChapterSamples { times: number[]; offsets: number[]; sizes: number[] }

/**
 * Where the QuickTime chapter track's samples are (tref/chap names it; its samples are the titles, its time to
 * sample table their starts): from stts, stsz, stsc and stco/co64, at most maxListedChapters samples.
 */
export function chapterTrackSamples(b: Uint8Array): ChapterSamples | undefined {
  const moov: Mp4Parent = { start: 0, end: b.length };
  const ids = new Set<number>();
  const traks: Box[] = [];
  for (const box of mp4Boxes(b, moov)) {
    if (box.type !== "trak") continue;
    traks.push(box);
    const chap = mp4Path(b, box, ["tref", "chap"]);
    if (chap) for (let o = chap.start; o + 4 <= chap.end && ids.size < 8; o += 4) ids.add(u32be(b, o) ?? 0);
  }
  const trak = traks.find((t) => {
    const tkhd = mp4Child(b, t, "tkhd");
    return tkhd !== undefined && ids.has(u32be(b, tkhd.start + (b[tkhd.start] === 1 ? 20 : 12)) ?? -1);
  });
  const mdhd = trak && mp4Path(b, trak, ["mdia", "mdhd"]);
  const stbl = trak && mp4Path(b, trak, ["mdia", "minf", "stbl"]);
  if (!mdhd || !stbl) return undefined;
  const timescale = u32be(b, mdhd.start + (b[mdhd.start] === 1 ? 20 : 12)) ?? 0;
  const stts = mp4Child(b, stbl, "stts");
  const stsz = mp4Child(b, stbl, "stsz");
  const stsc = mp4Child(b, stbl, "stsc");
  const stco = mp4Child(b, stbl, "stco") ?? mp4Child(b, stbl, "co64");
  if (!timescale || !stts || !stsz || !stsc || !stco) return undefined;
  const wide = stco.type === "co64";
  const times: number[] = [];
  let ticks = 0;
  const sttsCount = Math.min(u32be(b, stts.start + 4) ?? 0, Math.floor((stts.end - stts.start - 8) / 8));
  for (let i = 0; i < sttsCount && times.length < maxListedChapters; i++) {
    const n = u32be(b, stts.start + 8 + i * 8) ?? 0;
    const delta = u32be(b, stts.start + 12 + i * 8) ?? 0;
    for (let k = 0; k < n && times.length < maxListedChapters; k++) { times.push(ticks / timescale); ticks += delta; }
  }
  const fixed = u32be(b, stsz.start + 4) ?? 0;
  const sizeAt = (i: number) => (fixed || (u32be(b, stsz.start + 12 + i * 4) ?? 0));
  const chunkCount = Math.min(u32be(b, stco.start + 4) ?? 0, Math.floor((stco.end - stco.start - 8) / (wide ? 8 : 4)));
  const chunkOffset = (c: number) => wide ? (u32be(b, stco.start + 8 + c * 8) ?? 0) * 2 ** 32 + (u32be(b, stco.start + 12 + c * 8) ?? 0) : u32be(b, stco.start + 8 + c * 4) ?? 0;
  const stscCount = Math.min(u32be(b, stsc.start + 4) ?? 0, Math.floor((stsc.end - stsc.start - 8) / 12));
  const offsets: number[] = [];
  const sizes: number[] = [];
  for (let e = 0; e < stscCount && offsets.length < times.length; e++) {
    const first = (u32be(b, stsc.start + 8 + e * 12) ?? 1) - 1;
    const perChunk = u32be(b, stsc.start + 12 + e * 12) ?? 0;
    const nextFirst = e + 1 < stscCount ? (u32be(b, stsc.start + 8 + (e + 1) * 12) ?? 1) - 1 : chunkCount;
    for (let c = first; c < Math.min(nextFirst, chunkCount) && offsets.length < times.length; c++) {
      let at = chunkOffset(c);
      for (let s = 0; s < perChunk && offsets.length < times.length; s++) {
        const size = sizeAt(offsets.length);
        offsets.push(at);
        sizes.push(size);
        at += size;
      }
    }
  }
  return offsets.length > 0 ? { times: times.slice(0, offsets.length), offsets, sizes } : undefined;
}

/**
 * Chapters from a QuickTime chapter track (what ffmpeg writes for .mov, and for .mp4 without chpl): each sample is
 * a 16-bit length and the title. The samples are read in one request when they lie within maxChapterSampleBytes.
 */
export async function quickTimeChapters(source: { read(offset: number, length: number): Promise<Uint8Array> }, moov: Uint8Array): Promise<Chapter[]> {
  const samples = chapterTrackSamples(moov);
  if (!samples) return [];
  const from = Math.min(...samples.offsets);
  const to = Math.max(...samples.offsets.map((o, i) => o + samples.sizes[i]!));
  if (to - from > maxChapterSampleBytes || to <= from) return [];
  const bytes = await source.read(from, to - from);
  const decoder = new TextDecoder();
  return samples.offsets.map((o, i): Chapter => {
    const at = o - from;
    const length = Math.min(u16be(bytes, at) ?? 0, samples.sizes[i]! - 2);
    const title = length > 0 ? decoder.decode(bytes.subarray(at + 2, at + 2 + length)).replace(/^\uFEFF/, "").slice(0, maxTrackLabelLength) : "";
    return { start: Math.round(samples.times[i]! * 1000) / 1000, ...(title ? { title } : {}) };
  });
}
