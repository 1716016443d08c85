import { z } from "zod";

// Tracks, chapters, protection, accessibility and live facts: what a player meets besides the codecs. One file
// of leaf schemas so the container readers (edge), the runner's ffprobe mapping and the projection agree.

/** Most tracks of each kind listed; a hostile file may declare thousands. */
export const maxListedTracks = 64;
/** Most chapters listed; a million-entry table is cut here. */
export const maxListedChapters = 512;
/** Longest chapter title or track name kept (characters). */
export const maxTrackLabelLength = 200;
/** Most key systems listed (a file may hold 100,000 pssh boxes; the distinct systems are few). */
export const maxKeySystems = 16;

const language = z.string().max(35).meta({ description: "BCP 47 language tag (ISO 639-2 codes mapped: eng -> en); absent when undetermined" });
const label = z.string().max(maxTrackLabelLength);

export const VideoTrack = z.object({
  codec: z.string().optional().meta({ description: "ffprobe's codec name (h264, hevc, vp9, av1)" }),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  language: language.optional(),
  default: z.boolean().optional(),
}).meta({ id: "VideoTrack" });

export const audioRoles = ["main", "dub", "commentary", "description", "alternate"] as const;
export const AudioTrack = z.object({
  codec: z.string().optional().meta({ description: "ffprobe's codec name (aac, opus, ac3)" }),
  language: language.optional(),
  role: z.enum(audioRoles).optional().meta({
    description: "main, dub, commentary, or description (audio description for blind and partially sighted viewers), from "
      + "MP4 kind boxes, Matroska flags, DASH Role/Accessibility, HLS CHARACTERISTICS or the runner's dispositions",
  }),
  channels: z.number().int().positive().optional(),
  default: z.boolean().optional(),
  name: label.optional(),
}).meta({ id: "AudioTrack" });

export const textKinds = ["captions", "subtitles", "forced", "descriptions", "chapters", "metadata"] as const;
export const TextTrack = z.object({
  kind: z.enum(textKinds).meta({ description: "captions (for deaf and hard-of-hearing viewers), subtitles, forced (narrative), descriptions, chapters, metadata" }),
  format: z.string().meta({
    description: "tx3g, wvtt, stpp (TTML), c608, srt, ass, webvtt, pgs, dvb-subtitle, dvb-teletext, cea-608, cea-708 (captions inside the video stream)",
  }),
  language: language.optional(),
  default: z.boolean().optional(),
  forced: z.boolean().optional(),
  name: label.optional(),
}).meta({ id: "TextTrack" });

export const MediaTracks = z.object({
  video: z.array(VideoTrack).max(maxListedTracks),
  audio: z.array(AudioTrack).max(maxListedTracks),
  text: z.array(TextTrack).max(maxListedTracks),
  truncated: z.boolean().optional().meta({ description: "More tracks were declared than are listed" }),
}).meta({ id: "MediaTracks", description: "Every track a player meets, as the container or manifest declares it" });
export type MediaTracks = z.infer<typeof MediaTracks>;
export type AudioTrack = z.infer<typeof AudioTrack>;
export type TextTrack = z.infer<typeof TextTrack>;
export type VideoTrack = z.infer<typeof VideoTrack>;

export const Chapter = z.object({
  start: z.number().nonnegative().meta({ description: "Seconds from the start, millisecond precision" }),
  title: label.optional(),
}).meta({ id: "Chapter" });
export type Chapter = z.infer<typeof Chapter>;
export const Chapters = z.array(Chapter).max(maxListedChapters)
  .meta({ description: "Chapters in start order (MP4 chpl / QuickTime chapter track, Matroska Chapters, ID3 CHAP, Vorbis CHAPTERxx, a WebVTT chapters rendition)" });

/** EME key-system names: what a page passes to requestMediaKeySystemAccess. */
export const keySystemNames = ["com.widevine.alpha", "com.microsoft.playready", "com.apple.fps", "org.w3.clearkey"] as const;
export type KeySystemName = (typeof keySystemNames)[number];

export const Protection = z.object({
  encrypted: z.boolean(),
  scheme: z.string().max(32).optional().meta({
    description: "Common Encryption scheme (cenc, cbcs, cens, cbc1), an HLS METHOD (AES-128, SAMPLE-AES, SAMPLE-AES-CTR) or `webm` (WebM encryption)",
  }),
  keySystems: z.array(z.string().max(64)).max(maxKeySystems).meta({
    description: "EME key systems the file or manifest names (com.widevine.alpha, com.microsoft.playready, com.apple.fps, "
      + "org.w3.clearkey), or urn:uuid:... for systems not in that list; empty when none is named (AES-128 needs none)",
  }),
}).meta({ id: "Protection" });
export type Protection = z.infer<typeof Protection>;

export const Accessibility = z.object({
  captions: z.boolean().meta({ description: "A captions track (or CEA-608/708 captions in the video) exists" }),
  subtitles: z.boolean().meta({ description: "A subtitles track exists (captions included)" }),
  audioDescription: z.boolean().meta({ description: "An audio track describes the video for blind and partially sighted viewers" }),
  languages: z.object({
    audio: z.array(z.string()).meta({ description: "Spoken languages, BCP 47, in track order" }),
    text: z.array(z.string()).meta({ description: "Caption and subtitle languages, BCP 47" }),
  }),
}).meta({ id: "Accessibility", description: "What a publisher acts on (WCAG 1.2.2 captions, 1.2.5 audio description), summarised from the tracks" });
export type Accessibility = z.infer<typeof Accessibility>;

export const Live = z.object({
  lowLatency: z.boolean().meta({ description: "LL-HLS parts / server control, or a DASH low-latency service description" }),
  targetLatency: z.number().nonnegative().optional().meta({ description: "Seconds behind live the manifest asks players to stay (HLS PART-HOLD-BACK/HOLD-BACK, DASH Latency@target)" }),
  dvrWindow: z.number().nonnegative().optional().meta({ description: "Seconds a viewer can seek back (HLS: the playlist's segments; DASH timeShiftBufferDepth)" }),
  targetDuration: z.number().nonnegative().optional().meta({ description: "HLS EXT-X-TARGETDURATION (seconds)" }),
}).meta({ id: "Live", description: "A live stream: present only for live HLS/DASH" });
export type Live = z.infer<typeof Live>;

/** The track facts one reader (a container reader, the runner's ffprobe, a manifest) found. */
export interface TrackFacts {
  tracks?: MediaTracks;
  chapters?: Chapter[];
  protection?: Protection;
}
