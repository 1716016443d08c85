import { z } from "zod";
import { AudioMetadata, ImageMetadata, Loudness, PaletteColor, Placeholder, Storyboard, Thumbnail, VideoMetadata, Waveform } from "./media-data.ts";
import { Page, PageMedia, Streaming, StreamPreviewPlan } from "./streaming-page.ts";
import { Chapters, Live, MediaTracks, Protection } from "./tracks.ts";
import { Capture, Provenance, Rights } from "./provenance.ts";

/** Results written by stages; a missing key with a done stage means the stage produced nothing. */
export const StageResults = z.object({
  title: z.string().optional(),
  /** oEmbed 1.0 fields are scalars (oembed/oembed-client keeps only those): a flat map, not `unknown`, so the record
   *  crosses Durable Object RPC with its own type (RPC types refuse `unknown`; a recursive JSON type is too deep). */
  oembed: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
  embeddable: z.boolean().optional(),
  embeddableReason: z.string().optional(),
  image: ImageMetadata.optional(),
  video: VideoMetadata.optional(),
  audio: AudioMetadata.optional(),
  thumbnail: Thumbnail.optional(),
  placeholder: Placeholder.optional(),
  dominantColor: z.string().optional(),
  /** Palette colours (largest first); dominantColor is palette[0].hex. */
  palette: z.array(PaletteColor).optional(),
  storyboard: Storyboard.optional(),
  waveform: Waveform.optional(),
  /** EBU R128 of the whole audio (written with the waveform; projected into metadata.audio.loudness). */
  loudness: Loudness.optional(),
  /** Bytes the media runner pulled from the origin (its last successful run). */
  runnerBytesFetched: z.number().int().optional(),
  /** The edge pipeline declined this image (format or size): its previews are the runner's. */
  edgeRefused: z.string().optional(),
  /** HLS/DASH manifest facts (written with the metadata stage, inline). */
  streaming: Streaming.optional(),
  /** RFC 6381 codecs entries of the file's tracks, video first (written with the metadata stage; projected into playback). */
  codecs: z.array(z.string()).optional(),
  /** Tracks, chapters and encryption: the container header at the edge, the manifest, or the runner's ffprobe. */
  tracks: MediaTracks.optional(),
  chapters: Chapters.optional(),
  protection: Protection.optional(),
  /** A live stream's latency and DVR window, from the manifest. */
  live: Live.optional(),
  /** Where the runner reads a stream's previews from. */
  streamPreview: StreamPreviewPlan.optional(),
  /** Web page facts from the head (without the media, which has its own stage). */
  page: Page.omit({ media: true }).optional(),
  pageMedia: PageMedia.optional(),
  /** Media URLs the page names, best first, for the page:media stage. */
  pageMediaUrls: z.array(z.string()).optional(),
  /** Capture, rights and provenance facts (the metadata:provenance stage). */
  capture: Capture.optional(),
  rights: Rights.optional(),
  provenance: Provenance.optional(),
});
export type StageResults = z.infer<typeof StageResults>;
