import type { IAudioMetadata } from "music-metadata";
import { round } from "../../shared/format/metadata-values.ts";
import { maxListedChapters, maxTrackLabelLength, type Chapter } from "../../shared/shapes/tracks.ts";

/** Vorbis comment chapters (the CHAPTERxxx=HH:MM:SS.mmm and CHAPTERxxxNAME convention of Ogg and FLAC). */
const vorbisChapter = /^CHAPTER(\d{1,4})$/i;
const vorbisTime = /^(\d{1,3}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;

/**
 * Chapters music-metadata read from an audio file's tags: ID3v2 CHAP frames (in `format.chapters`, seconds) or
 * Vorbis comments CHAPTERxxx / CHAPTERxxxNAME. Cut at the shared limit, in start order.
 */
export function audioChapters(metadata: Pick<IAudioMetadata, "format" | "native"> | undefined): Chapter[] {
  if (!metadata) return [];
  const id3 = metadata.format.chapters;
  if (id3?.length) {
    return id3.slice(0, maxListedChapters).map((c) => ({ start: round(c.start, 3), ...(c.title ? { title: c.title.slice(0, maxTrackLabelLength) } : {}) }));
  }
  const tags = metadata.native["vorbis"];
  if (!tags) return [];
  const starts = new Map<string, number>();
  const names = new Map<string, string>();
  for (const tag of tags) {
    if (typeof tag.value !== "string") continue;
    const id = tag.id.toUpperCase();
    const name = /^CHAPTER(\d{1,4})NAME$/.exec(id);
    if (name) { names.set(name[1]!, tag.value.slice(0, maxTrackLabelLength)); continue; }
    const chapter = vorbisChapter.exec(id);
    const time = chapter ? vorbisTime.exec(tag.value.trim()) : null;
    if (chapter && time) {
      const seconds = Number(time[1]) * 3600 + Number(time[2]) * 60 + Number(time[3]) + Number(`0.${time[4] ?? "0"}`);
      starts.set(chapter[1]!, seconds);
    }
  }
  return [...starts].map(([id, start]) => ({ start: round(start, 3), ...(names.get(id) ? { title: names.get(id)! } : {}) }))
    .sort((a, b) => a.start - b.start).slice(0, maxListedChapters);
}
