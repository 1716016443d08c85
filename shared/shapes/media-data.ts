import { z } from "zod";
import { RequiresMse, Streaming } from "./streaming-page.ts";
import { browsers } from "../media/browser-support.ts";
import { storyboardColumns, storyboardMaxTiles } from "../limits.ts";
import { Chapters, Live, MediaTracks, Protection } from "./tracks.ts";
import { Capture, Rights } from "./provenance.ts";

// Data namespaces of the answer. A field that is `null` is registered but pending; an omitted field is
// unsupported for the category. Empty objects never appear.

const hexColor = z.string().regex(/^#[0-9a-f]{6}$/).meta({ description: "Hex colour #rrggbb" });

export const Identity = z.object({
  url: z.string().meta({ description: "The URL as given" }),
  finalUrl: z.string().meta({ description: "The URL after redirects" }),
  canonicalUrl: z.string().optional().meta({ description: "Normalised provider URL (provider URLs only)" }),
  mime: z.string().meta({ description: "MIME type sniffed from bytes (bytes win over Content-Type)" }),
  shareUrl: z.string().optional().meta({
    description: "The service's share page for this URL, `/v/<id>` (the id is the URL as base64url: no lookup, no file extension), " +
      "for unfurlers (OpenGraph, Twitter player card, oEmbed discovery); media and embeddable provider pages only",
  }),
}).meta({ id: "Identity" });

export const Semantic = z.object({
  kind: z.enum(["direct-media", "embed-media", "webpage"]),
  semanticType: z.enum(["video", "audio", "image", "embedded-video", "embedded-audio"]).optional()
    .meta({ description: "Omitted for plain web pages" }),
  title: z.string().optional(),
  enrichmentSources: z.array(z.string()).optional().meta({
    description: "Direct media: the evidence behind the category and facts, e.g. `tracks:matroska-tracks` (the "
      + "container's track list), `bytes:image/png` (the magic number), `duration:matroska-tail` (computed from the file's end)",
  }),
  segment: z.enum(["init", "media"]).optional().meta({
    description: "A streaming segment rather than a whole file: `init` (an initialization segment: tracks and codecs, "
      + "no duration, no frames) or `media` (a fragmented-MP4 media segment: samples that need their initialization segment)",
  }),
}).meta({ id: "Semantic" });

export const Provider = z.object({
  name: z.string().meta({ description: "Lower-case provider name, e.g. youtube" }),
  confidence: z.number().min(0).max(1),
  detectionMethod: z.enum(["url-parser", "oembed-discovery"]),
}).meta({ id: "Provider" });

export const BrowserVerdict = z.object({
  verdict: z.enum(["native", "mse", "eme", "no"]).meta({ description: "native: a <video>/<audio> element plays it; mse: a Media Source Extensions player does; eme: encrypted, plays through Encrypted Media Extensions with `keySystem`; no: none of these" }),
  reasons: z.array(z.string()).meta({ description: "What decided or limits it, e.g. `codec hvc1.1.6.L93.B0 (hevc) plays only with a hardware decoder`" }),
  keySystem: z.string().optional().meta({ description: "With verdict eme: the key system this browser offers for it (e.g. com.widevine.alpha)" }),
}).meta({ id: "BrowserVerdict" });

export const Playback = z.object({
  strategy: z.enum(["native", "iframe", "link"]).meta({ description: "`link` for web pages that cannot be played" }),
  component: z.enum(["video", "audio", "img", "iframe", "a"]),
  embedUrl: z.string().optional(),
  streamable: z.boolean().meta({ description: "True only when the origin answered a Range request with 206" }),
  downloadable: z.boolean(),
  html: z.string().optional().meta({ description: "Ready-to-use HTML (heavy field; see profiles and expand)" }),
  requiresMse: RequiresMse.optional(),
  codecs: z.string().optional().meta({
    description: "RFC 6381 type with codecs, what a page passes to `canPlayType` or `MediaSource.isTypeSupported`, "
      + "e.g. `video/mp4; codecs=\"avc1.64001F, mp4a.40.2\"` (bare for single-codec types such as `audio/mpeg`). "
      + "Video and audio only, once the container header or the runner named the codecs",
  }),
  compatibility: z.record(z.enum(browsers), BrowserVerdict).optional().meta({
    description: "Per browser (chrome, firefox, safari, ios, android, edge): native, mse (through hls.js/dash.js) or no, "
      + "with the reasons (codec, profile, HDR transfer, container, moov at the end), from shared/media/browser-support.ts",
  }),
  live: Live.optional().meta({ description: "Live HLS/DASH only: low latency, target latency and DVR window as the manifest declares them" }),
}).meta({ id: "Playback" });

export const Duration = z.object({
  seconds: z.number().meta({ description: "Seconds, millisecond precision" }),
  formatted: z.string().meta({ description: "m:ss or h:mm:ss" }),
}).meta({ id: "Duration" });
export const Bitrate = z.object({
  bps: z.number().meta({ description: "Bits per second" }),
  formatted: z.string(),
}).meta({ id: "Bitrate" });

/**
 * How a number was found, so a caller knows how far to trust it: `header` (the container declares it),
 * `sample-tables` (MP4 stts/mdhd, Matroska DefaultDuration: exact per-sample timing), `packets-counted` (timestamps
 * of real packets, e.g. PCR/SCR at head and tail, frames walked), `bitrate-estimate` (size over a declared or
 * measured rate: exact for CBR only), `decoder` (ffprobe in the media runner).
 */
export const FactSource = z.enum(["header", "sample-tables", "packets-counted", "bitrate-estimate", "decoder"])
  .meta({ id: "FactSource" });
export const FactSources = z.object({
  duration: FactSource.optional(),
  fps: FactSource.optional(),
  dimensions: FactSource.optional(),
  bitrate: FactSource.optional(),
  sampleRate: FactSource.optional(),
}).meta({ id: "FactSources", description: "Where each fact came from: absent for a fact not reported" });

const pixels = (what: string) => z.number().int().optional().meta({ description: `${what} in pixels, as displayed` });

export const ImageMetadata = z.object({
  colorSpace: z.string(),
  hasAlpha: z.boolean(),
  width: pixels("Width (after EXIF orientation)"),
  height: pixels("Height (after EXIF orientation)"),
  orientation: z.number().int().min(1).max(8).optional()
    .meta({ description: "EXIF orientation tag (1-8) when the file has one; width/height already apply it" }),
  frames: z.number().int().positive().optional().meta({ description: "Frames in the file: 1 for a still image" }),
  duration: Duration.optional().meta({ description: "Animated images: one play of every frame" }),
  loop: z.number().int().nonnegative().optional()
    .meta({ description: "Animated images: times the animation plays, 0 = forever" }),
  hdrGainMap: z.object({
    signalledBy: z.array(z.enum(["xmp-hdrgm", "iso-21496-1"]))
      .meta({ description: "How the primary picture announces it: an hdr-gain-map XMP packet (Ultra HDR), an ISO 21496-1 APP2 segment" }),
    version: z.string().max(16).optional().meta({ description: "hdrgm:Version of the XMP announcement" }),
  }).optional().meta({
    description: "An HDR gain map (Ultra HDR / ISO 21496-1): the file is an SDR picture plus a gain-map picture (MPF "
      + "secondary image) that a capable display uses to show it in HDR",
  }),
}).meta({ id: "ImageMetadata" });
export const VideoMetadata = z.object({
  duration: Duration.optional(),
  fps: z.number().optional().meta({ description: "Average frames per second" }),
  bitrate: Bitrate.optional(),
  width: pixels("Width (after the container's rotation matrix)"),
  height: pixels("Height (after the container's rotation matrix)"),
  rotation: z.union([z.literal(0), z.literal(90), z.literal(180), z.literal(270)]).optional()
    .meta({ description: "Clockwise degrees a player turns the stored picture (display matrix)" }),
  codec: z.string().optional().meta({ description: "Video codec, ffprobe's short name (h264, hevc, vp9, av1)" }),
  profile: z.string().optional().meta({ description: "Codec profile as ffprobe names it (e.g. High, Main 10)" }),
  pixelFormat: z.string().optional().meta({ description: "Decoded pixel format, ffprobe's name (e.g. yuv420p)" }),
  hdr: z.enum(["sdr", "pq", "hlg"]).optional()
    .meta({ description: "Transfer function: pq (HDR10/Dolby Vision base), hlg, or sdr" }),
  faststart: z.boolean().optional()
    .meta({ description: "MP4/MOV only: the index (moov) precedes the media data, so playback starts before the download ends" }),
  channels: z.number().int().optional().meta({ description: "Audio channels of the soundtrack (absent without one)" }),
  codedWidth: z.number().int().optional()
    .meta({ description: "Width of the stored (coded) picture in pixels, before the sample aspect ratio and rotation" }),
  codedHeight: z.number().int().optional()
    .meta({ description: "Height of the stored (coded) picture in pixels, before rotation" }),
  sampleAspectRatio: z.string().regex(/^\d+:\d+$/).optional()
    .meta({ description: "Sample (pixel) aspect ratio as ffprobe writes it, e.g. 64:45 for anamorphic PAL; absent for square pixels" }),
  sources: FactSources.optional(),
}).meta({ id: "VideoMetadata" });
/** EBU R128 measurement of the whole programme (ffmpeg's ebur128 filter, peak=true). */
export const Loudness = z.object({
  integratedLufs: z.number().meta({ description: "Integrated loudness, LUFS (EBU R128)" }),
  rangeLu: z.number().meta({ description: "Loudness range (LRA), LU" }),
  truePeakDbtp: z.number().meta({ description: "True peak, dBTP (4x oversampled), the loudest channel" }),
}).meta({ id: "Loudness" });

export const AudioMetadata = z.object({
  duration: Duration.optional(),
  bitrate: Bitrate.optional(),
  sampleRate: z.number().optional().meta({ description: "Hz, as decoded (Opus always 48000)" }),
  channels: z.number().int().optional(),
  channelLayout: z.string().optional().meta({ description: "e.g. mono, stereo, 5.1" }),
  bitDepth: z.number().int().optional().meta({ description: "Bits per sample, for codecs that have one (PCM, FLAC, ALAC)" }),
  codec: z.string().optional().meta({ description: "ffprobe's short codec name (aac, opus, mp3, flac)" }),
  sources: FactSources.optional(),
  loudness: Loudness.optional().meta({ description: "EBU R128 loudness; present once `expand=waveform` was asked for this resource" }),
}).meta({ id: "AudioMetadata" });

export const Metadata = z.object({
  filename: z.string().optional(),
  size: z.object({ bytes: z.number().int(), formatted: z.string() }).optional(),
  image: ImageMetadata.nullable().optional(),
  video: VideoMetadata.nullable().optional(),
  audio: AudioMetadata.nullable().optional(),
  streaming: Streaming.optional(),
  tracks: MediaTracks.optional().meta({ description: "Video, audio and text tracks with languages, roles and dispositions, once the header, manifest or runner named them" }),
  chapters: Chapters.optional(),
  protection: Protection.optional().meta({ description: "Encryption and the DRM key systems it names; present when the file or manifest is encrypted" }),
  capture: Capture.nullable().optional().meta({ description: "When, with what and where it was taken (keys only when the file holds them); null while pending" }),
  rights: Rights.nullable().optional().meta({ description: "Creator, copyright and licence the file declares; null while pending" }),
  sources: FactSources.optional().meta({
    description: "Where each reported fact came from, the video stream's for duration, fps, dimensions and bitrate, the audio stream's for the sample rate; absent while metadata is pending",
  }),
}).meta({ id: "Metadata" });

export const Thumbnail = z.object({
  url: z.string().meta({
    description: "Service-relative path for generated thumbnails, absolute for provider-native. A generated thumbnail's name " +
      "carries the file's revision: it changes when the file at the origin does (immutable, cached for a year)",
  }),
  dimensions: z.string().regex(/^\d+x\d+$/).optional(),
}).meta({ id: "Thumbnail" });
export const Placeholder = z.object({ type: z.literal("blurhash"), value: z.string() }).meta({ id: "Placeholder" });
/** Palette size limit (shared/media/palette.ts quantises to at most this many colours). */
export const paletteColorsMax = 6;
export const PaletteColor = z.object({
  hex: hexColor,
  share: z.number().min(0).max(1).meta({ description: "Fraction (0-1) of the opaque pixels in this colour's cluster, 4 decimals" }),
});
export const Palette = z.object({
  dominant: hexColor.meta({ description: "The largest colour: equals colors[0].hex (#000000 for a fully transparent image)" }),
  colors: z.array(PaletteColor).max(paletteColorsMax).optional().meta({
    description: "Up to 6 colours, largest share first, from median cut + k-means over the thumbnail's pixels " +
      "(same quantiser at the edge and in the media runner). Shares may sum to under 1: specks under 1 % are dropped. " +
      "Absent only for results stored before palettes were computed.",
  }),
});

/** Most tiles in one storyboard sprite, and its grid width (the sprite is at most this many tiles wide). */
export { storyboardColumns, storyboardMaxTiles };
export const Storyboard = z.object({
  url: z.string().meta({ description: "Service-relative path of the sprite (WebP): tiles left to right, top to bottom" }),
  vtt: z.string().meta({ description: "Service-relative path of the WebVTT thumbnails track (cues point into the sprite with #xywh=)" }),
  tiles: z.number().int().positive().max(storyboardMaxTiles),
  columns: z.number().int().positive().max(storyboardColumns),
  tileWidth: z.number().int().positive(),
  tileHeight: z.number().int().positive(),
  interval: z.number().positive().meta({
    description: "Seconds between tiles: tile i shows the frame at i x interval (the first frame at or after it), decoded " +
      "forward from the keyframe before it; frameTimes says when it shows another frame",
  }),
  frameTimes: z.array(z.number().nonnegative()).max(storyboardMaxTiles).optional().meta({
    description: "Seconds of the frame each tile shows (to the millisecond, rounded down). Equal to i x interval, but where " +
      "keyframes were too sparse to decode forward within the runner's bounds the tiles show keyframes: then the WebVTT " +
      "track's cues start at these times and tiles showing the same frame share one cue",
  }),
  duration: z.number().positive().optional().meta({ description: "Seconds of the video; the track's last cue ends here" }),
}).meta({ id: "Storyboard" });

/** Fewest and most peaks in a waveform. */
export const waveformMinPeaks = 100;
export const waveformMaxPeaks = 2000;
export const Waveform = z.object({
  peaks: z.array(z.number().min(0).max(1)).min(waveformMinPeaks).max(waveformMaxPeaks)
    .meta({ description: "Largest absolute sample of each bucket, any channel, at the file's own sample rate; 0-1, 3 decimals" }),
  perSecond: z.number().positive().meta({ description: "Buckets per second of audio" }),
  url: z.string().optional().meta({
    description: "Service-relative path of the same buckets as BBC audiowaveform JSON (version 2, signed 16-bit min/max per " +
      "channel, AudioWaveform), the format peaks.js and wavesurfer.js load: e.g. peaks.init({ dataUri: { json: url } }) with " +
      "zoomLevels at or above its samples_per_pixel",
  }),
}).meta({ id: "Waveform" });

/**
 * BBC audiowaveform's JSON format, version 2 (https://github.com/bbc/audiowaveform/blob/master/doc/DataFormat.md):
 * what GET /api/v1/waveforms/{file} answers.
 */
export const AudioWaveform = z.object({
  version: z.literal(2),
  channels: z.number().int().positive().max(8),
  sample_rate: z.number().int().positive().meta({ description: "Hz of the decoded audio: every sample was measured, nothing resampled" }),
  samples_per_pixel: z.number().int().positive(),
  bits: z.union([z.literal(8), z.literal(16)]).meta({ description: "8 (peaks.js reads only these; full scale 127) or 16 (full scale 32767)" }),
  length: z.number().int().min(waveformMinPeaks).max(waveformMaxPeaks).meta({ description: "Points (pixels) per channel" }),
  data: z.array(z.number().int().min(-32768).max(32767)).max(waveformMaxPeaks * 2 * 8).meta({
    description: "For each point, for each channel: the minimum then the maximum sample at `bits` (rounded outwards: a peak is never drawn lower)",
  }),
}).meta({ id: "AudioWaveform" });
export type AudioWaveform = z.infer<typeof AudioWaveform>;

export const Preview = z.object({
  thumbnail: Thumbnail.nullable().optional(),
  placeholder: Placeholder.nullable().optional(),
  palette: Palette.nullable().optional(),
  dominantColor: hexColor.nullable().optional().meta({ description: "Same as palette.dominant" }),
  storyboard: Storyboard.nullable().optional().meta({ description: "Video only, once `expand=storyboard` was asked for this resource (null while pending)" }),
  waveform: Waveform.nullable().optional().meta({ description: "Audio only, once `expand=waveform` was asked for this resource (null while pending)" }),
  spectrogram: z.null().optional().meta({ description: "Audio only; reserved, always null" }),
}).meta({ id: "Preview" });

export const ProviderData = z
  .object({
    id: z.string(),
    canonicalUrl: z.string(),
    embedUrl: z.string(),
    thumbnailUrl: z.string().optional(),
    oembed: z.record(z.string(), z.unknown()).nullable().optional()
      .meta({ description: "The provider's oEmbed answer (null while pending, omitted when the stage failed)" }),
    embeddable: z.boolean().optional(),
  })
  .meta({ description: "Provider-native data (standard and full only)" }).meta({ id: "ProviderData" });
