import { z } from "zod";
import { Page, RequiresMse, Streaming } from "./streaming-page.ts";
import { StageError } from "./stages.ts";

// Data namespaces of SPEC 2.2. A field that is `null` is registered but pending; an omitted field is
// unsupported for the category (SPEC 2.3). Empty objects never appear.

const hexColor = z.string().regex(/^#[0-9a-f]{6}$/).meta({ description: "Hex colour #rrggbb" });

export const Identity = z.object({
  url: z.string().meta({ description: "The URL as given" }),
  finalUrl: z.string().meta({ description: "The URL after redirects" }),
  canonicalUrl: z.string().optional().meta({ description: "Normalised provider URL (provider URLs only)" }),
  mime: z.string().meta({ description: "MIME type sniffed from bytes (bytes win over Content-Type)" }),
});

export const Semantic = z.object({
  kind: z.enum(["direct-media", "embed-media", "webpage"]),
  semanticType: z.enum(["video", "audio", "image", "embedded-video", "embedded-audio"]).optional()
    .meta({ description: "Omitted for plain web pages" }),
  title: z.string().optional(),
  enrichmentSources: z.array(z.string()).optional().meta({
    description: "Direct media: the evidence behind the category and facts, e.g. `tracks:matroska-tracks` (the "
      + "container's track list), `bytes:image/png` (the magic number), `duration:matroska-tail` (computed from the file's end)",
  }),
});

export const Provider = z.object({
  name: z.string().meta({ description: "Lower-case provider name, e.g. youtube" }),
  confidence: z.number().min(0).max(1),
  detectionMethod: z.enum(["url-parser", "oembed-discovery"]),
});

export const Playback = z.object({
  strategy: z.enum(["native", "iframe", "link"]).meta({ description: "`link` for web pages that cannot be played" }),
  component: z.enum(["video", "audio", "img", "iframe", "a"]),
  embedUrl: z.string().optional(),
  streamable: z.boolean().meta({ description: "True only when the origin answered a Range request with 206" }),
  downloadable: z.boolean(),
  html: z.string().optional().meta({ description: "Ready-to-use HTML (heavy field; see profiles and expand)" }),
  requiresMse: RequiresMse.optional(),
});

export const Duration = z.object({
  seconds: z.number().meta({ description: "Seconds, millisecond precision" }),
  formatted: z.string().meta({ description: "m:ss or h:mm:ss" }),
});
export const Bitrate = z.object({
  bps: z.number().meta({ description: "Bits per second" }),
  formatted: z.string(),
});

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
});
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
});
export const AudioMetadata = z.object({
  duration: Duration.optional(),
  bitrate: Bitrate.optional(),
  sampleRate: z.number().optional().meta({ description: "Hz, as decoded (Opus always 48000)" }),
  channels: z.number().int().optional(),
  channelLayout: z.string().optional().meta({ description: "e.g. mono, stereo, 5.1" }),
  bitDepth: z.number().int().optional().meta({ description: "Bits per sample, for codecs that have one (PCM, FLAC, ALAC)" }),
  codec: z.string().optional().meta({ description: "ffprobe's short codec name (aac, opus, mp3, flac)" }),
});

export const Metadata = z.object({
  filename: z.string().optional(),
  size: z.object({ bytes: z.number().int(), formatted: z.string() }).optional(),
  image: ImageMetadata.nullable().optional(),
  video: VideoMetadata.nullable().optional(),
  audio: AudioMetadata.nullable().optional(),
  streaming: Streaming.optional(),
});

export const Thumbnail = z.object({
  url: z.string().meta({ description: "Service-relative path for generated thumbnails, absolute for provider-native" }),
  dimensions: z.string().regex(/^\d+x\d+$/).optional(),
});
export const Placeholder = z.object({ type: z.literal("blurhash"), value: z.string() });

export const Preview = z.object({
  thumbnail: Thumbnail.nullable().optional(),
  placeholder: Placeholder.nullable().optional(),
  palette: z.object({ dominant: hexColor }).nullable().optional(),
  dominantColor: hexColor.nullable().optional(),
  waveform: z.null().optional().meta({ description: "Audio only; reserved, always null" }),
  spectrogram: z.null().optional().meta({ description: "Audio only; reserved, always null" }),
});

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
  .meta({ description: "Provider-native data (standard and full only)" });

export const Diagnostics = z.object({
  timings: z.record(z.string(), z.number().int()).meta({ description: "Milliseconds: total, semantic, mediaFormat, preview, ..." }),
  stageErrors: z.array(StageError).optional()
    .meta({ description: "Why each stage in processing.failedStages failed. Present only when a stage failed." }),
});

export const Network = z.object({
  headers: z.record(z.string(), z.string()).meta({ description: "Final hop response headers (set-cookie removed)" }),
});

export const InspectData = z.object({
  identity: Identity.optional(),
  semantic: Semantic.optional(),
  provider: Provider.optional(),
  playback: Playback.optional(),
  metadata: Metadata.optional(),
  preview: Preview.optional(),
  providerData: ProviderData.optional(),
  diagnostics: Diagnostics.optional(),
  network: Network.optional(),
  page: Page.optional(),
});
export type InspectData = z.infer<typeof InspectData>;

/** Namespaces a caller may name in `fields`. */
export const namespaceNames = ["identity", "semantic", "provider", "playback", "metadata", "preview", "diagnostics", "page"] as const;
export type NamespaceName = (typeof namespaceNames)[number];
