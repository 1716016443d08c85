/**
 * Tracks (languages, dispositions, subtitle formats, captions in the video) and chapters from ffprobe, for files
 * the edge could not read. The streams come from the metadata probe; chapters and the first frames' caption side
 * data from one more bounded ffprobe run (its output is capped, so a file with a million chapters costs a capped
 * read and gives none rather than failing the job).
 */
import { z } from "zod";
import { bcp47Language } from "../../../shared/media/languages.ts";
import {
  maxListedChapters, maxListedTracks, maxTrackLabelLength,
  type AudioTrack, type Chapter, type MediaTracks, type TextTrack,
} from "../../../shared/shapes/tracks.ts";
import { runProcess } from "./run-process.ts";
import { safeInputArgs } from "./engine-args.ts";
import type { FfprobeOutput, ProbeOptions } from "./ffprobe.ts";

/** ffprobe's subtitle codec names as the API names the formats. */
const textFormats: Readonly<Record<string, string>> = {
  mov_text: "tx3g", subrip: "srt", srt: "srt", ass: "ass", ssa: "ssa", webvtt: "webvtt", hdmv_pgs_subtitle: "pgs",
  dvb_subtitle: "dvb-subtitle", dvb_teletext: "dvb-teletext", eia_608: "cea-608", ttml: "stpp", dvd_subtitle: "vobsub", text: "text",
};
/** Frames whose side data is looked at for A/53 captions. */
const captionFrames = 8;
/** The details probe prints at most this much (about 5,000 chapters); past it, none are reported. */
const maxDetailsBytes = 512 * 1024;

type Stream = FfprobeOutput["streams"][number] & {
  tags?: { language?: string; title?: string };
  disposition?: Record<string, number | undefined>;
  closed_captions?: number;
};

/** The video, audio and subtitle streams ffprobe lists, as the API's track lists (cover art left out). */
export function toTracks(probe: FfprobeOutput): MediaTracks {
  const tracks: MediaTracks = { video: [], audio: [], text: [] };
  let truncated = false;
  const push = <K extends "video" | "audio" | "text">(kind: K, track: MediaTracks[K][number]) => {
    if (tracks[kind].length >= maxListedTracks) { truncated = true; return; }
    (tracks[kind] as MediaTracks[K][number][]).push(track);
  };
  let captions = false;
  for (const s of probe.streams as Stream[]) {
    const d = s.disposition ?? {};
    const language = bcp47Language(s.tags?.language);
    const name = s.tags?.title?.slice(0, maxTrackLabelLength);
    const base = { ...(language ? { language } : {}), default: d.default === 1 };
    if (s.codec_type === "video" && d.attached_pic !== 1) {
      push("video", { ...(s.codec_name ? { codec: s.codec_name } : {}), ...(s.width ? { width: s.width } : {}), ...(s.height ? { height: s.height } : {}), ...base });
      if (s.closed_captions === 1) captions = true;
    } else if (s.codec_type === "audio") {
      const role: AudioTrack["role"] = d.visual_impaired === 1 || d.descriptions === 1 ? "description" : d.comment === 1 ? "commentary"
        : d.dub === 1 ? "dub" : d.original === 1 ? "main" : undefined;
      push("audio", { ...(s.codec_name ? { codec: s.codec_name } : {}), ...base, ...(role ? { role } : {}), ...(s.channels ? { channels: s.channels } : {}), ...(name ? { name } : {}) });
    } else if (s.codec_type === "subtitle") {
      const format = textFormats[s.codec_name ?? ""] ?? (s.codec_name ?? "unknown").slice(0, 32);
      const kind: TextTrack["kind"] = d.hearing_impaired === 1 || d.captions === 1 || format === "cea-608" ? "captions"
        : d.descriptions === 1 ? "descriptions" : d.metadata === 1 ? "metadata" : d.forced === 1 ? "forced" : "subtitles";
      push("text", { kind, format, ...base, ...(d.forced === 1 ? { forced: true } : {}), ...(name ? { name } : {}) });
    }
  }
  if (captions) push("text", { kind: "captions", format: "cea-608" });
  return truncated ? { ...tracks, truncated } : tracks;
}

const Details = z.object({
  chapters: z.array(z.looseObject({ start_time: z.union([z.string(), z.number()]).optional(), tags: z.looseObject({ title: z.string().optional() }).optional() })).default([]),
  frames: z.array(z.looseObject({ side_data_list: z.array(z.looseObject({ side_data_type: z.string().optional() })).optional() })).default([]),
});

export interface TrackDetails { chapters: Chapter[]; captions: boolean }

/** Chapters and whether the first video frames carry A/53 captions; undefined when the run fails or says too much. */
export async function probeDetails(input: string, options: ProbeOptions): Promise<TrackDetails | undefined> {
  const result = await runProcess(
    options.ffprobe,
    ["-hide_banner", "-loglevel", "error", ...safeInputArgs(options.maxPixels), "-select_streams", "v:0", "-read_intervals", `%+#${captionFrames}`,
      // frame_side_data (not side_data, which would list every packet too) keeps the output to frames and chapters.
      "-show_entries", "chapter=start_time:chapter_tags=title:frame=pts:frame_side_data=side_data_type", "-print_format", "json", input],
    {
      timeoutMs: options.timeoutMs, maxStdoutBytes: maxDetailsBytes,
      ...(options.signal ? { signal: options.signal } : {}), ...(options.httpProxy ? { httpProxy: options.httpProxy } : {}),
    },
  ).catch(() => undefined);
  if (!result || result.code !== 0) return undefined;
  let parsed: z.infer<typeof Details>;
  try {
    parsed = Details.parse(JSON.parse(result.stdout.toString("utf8")));
  } catch {
    return undefined;
  }
  const chapters = parsed.chapters.slice(0, maxListedChapters).flatMap((c): Chapter[] => {
    const start = Number(c.start_time);
    if (!Number.isFinite(start) || start < 0) return [];
    const title = c.tags?.title?.slice(0, maxTrackLabelLength);
    return [{ start: Math.round(start * 1000) / 1000, ...(title ? { title } : {}) }];
  });
  const captions = parsed.frames.some((f) => f.side_data_list?.some((s) => s.side_data_type === "ATSC A53 Part 4 Closed Captions"));
  return { chapters, captions };
}

/** The streams' tracks with the details probe's captions added (ffprobe 5.1's closed_captions stays 0 for them). */
export function withDetails(tracks: MediaTracks, details: TrackDetails | undefined): MediaTracks {
  if (!details?.captions || tracks.video.length === 0 || tracks.text.some((t) => t.format === "cea-608")) return tracks;
  return { ...tracks, text: [...tracks.text, { kind: "captions" as const, format: "cea-608" }].slice(0, maxListedTracks) };
}
