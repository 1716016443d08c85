import type { InspectData } from "../schemas/inspect-data.ts";
import type { ResourceRecord } from "../schemas/record.ts";

const maxLanguages = 32;

/**
 * `data.accessibility` of a video or audio record whose tracks are known: captions (a captions track, or CEA
 * captions in the video), any subtitles, an audio-description track, and the spoken and written languages.
 */
export function accessibilityOf(record: ResourceRecord): Pick<InspectData, "accessibility"> {
  const tracks = record.results.tracks;
  if (record.provider || !tracks || (record.category !== "video" && record.category !== "audio")) return {};
  const text = tracks.text.filter((t) => t.kind === "captions" || t.kind === "subtitles" || t.kind === "forced");
  const distinct = (values: (string | undefined)[]) => [...new Set(values.filter((v): v is string => v !== undefined))].slice(0, maxLanguages);
  return {
    accessibility: {
      captions: tracks.text.some((t) => t.kind === "captions"),
      subtitles: text.length > 0,
      audioDescription: tracks.audio.some((t) => t.role === "description") || tracks.text.some((t) => t.kind === "descriptions"),
      languages: { audio: distinct(tracks.audio.map((t) => t.language)), text: distinct(text.map((t) => t.language)) },
    },
  };
}
