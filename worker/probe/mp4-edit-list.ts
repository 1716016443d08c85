/**
 * MP4/MOV edit lists (`elst`, ISO/IEC 14496-12 8.6.6): which stretch of a track's media is presented, and when.
 * A track's media (mdhd) often runs longer than what plays: a copy cut at a non-keyframe keeps the samples
 * before the cut and an edit that starts after them, and an empty edit (media_time -1) delays a track's start.
 * ffprobe reports a track's duration as its edits' (leading empty edits become its start time) and a file
 * without a movie duration as the span of its tracks; these are the same numbers from the box itself.
 */
import { u32be } from "../bytes/read-bytes.ts";

/** Edits read from one list; real files have one or two (cameras and editors at most a handful). */
const maxEdits = 1024;

export interface Edit {
  /** In the movie's timescale; 0 in a fragmented file's list means "to the end of the media". */
  segmentDuration: number;
  /** In the media's timescale; -1 for an empty edit (nothing presented for segmentDuration). */
  mediaTime: number;
}

/** The edits of an `elst` body (version 0: 32-bit fields, version 1: 64-bit). Stops at the body's end. */
export function readEditList(b: Uint8Array, start: number, end: number): Edit[] {
  if (start + 8 > end || end > b.length) return [];
  const v1 = b[start] === 1;
  const size = v1 ? 20 : 12;
  const count = Math.min(u32be(b, start + 4) ?? 0, maxEdits, Math.floor((end - start - 8) / size));
  const edits: Edit[] = [];
  for (let i = 0, o = start + 8; i < count; i++, o += size) {
    const segmentDuration = v1 ? (u32be(b, o) ?? 0) * 2 ** 32 + (u32be(b, o + 4) ?? 0) : u32be(b, o) ?? 0;
    const high = u32be(b, v1 ? o + 8 : o + 4) ?? 0;
    // media_time is signed: -1 (all ones) marks an empty edit, in either width.
    const mediaTime = v1 ? ((high | 0) < 0 ? -1 : high * 2 ** 32 + (u32be(b, o + 12) ?? 0)) : high | 0;
    edits.push({ segmentDuration, mediaTime: mediaTime < 0 ? -1 : mediaTime });
  }
  return edits;
}

export interface EditSpan {
  /** The leading empty edits: when the track starts presenting, in seconds. */
  startSeconds: number;
  /** What the edits after those present, in seconds; undefined when an edit runs "to the end" (duration 0). */
  presentedSeconds?: number;
}

/** The presentation span the edits give a track, in a movie of `movieTimescale` ticks a second. */
export function editSpan(edits: readonly Edit[], movieTimescale: number): EditSpan | undefined {
  if (edits.length === 0 || !(movieTimescale > 0)) return undefined;
  let lead = 0;
  let i = 0;
  for (; i < edits.length && edits[i]!.mediaTime === -1; i++) lead += edits[i]!.segmentDuration;
  const rest = edits.slice(i);
  const open = rest.some((e) => e.segmentDuration === 0);
  const presented = rest.reduce((sum, e) => sum + e.segmentDuration, 0);
  return { startSeconds: lead / movieTimescale, ...(open || rest.length === 0 ? {} : { presentedSeconds: presented / movieTimescale }) };
}

/**
 * A file's duration from its tracks, as ffprobe gives one when the movie header has none: from the earliest
 * track start to the latest track end (start + duration), each track's duration its edits' or its media's.
 */
export function tracksSpanSeconds(tracks: ReadonlyArray<{ durationSeconds?: number; startSeconds?: number }>): number | undefined {
  let first = Infinity;
  let last = -Infinity;
  for (const t of tracks) {
    if (!(t.durationSeconds !== undefined && t.durationSeconds > 0)) continue;
    const start = t.startSeconds ?? 0;
    first = Math.min(first, start);
    last = Math.max(last, start + t.durationSeconds);
  }
  return last > first ? last - first : undefined;
}
