import { z } from "zod";
import { MediaCategory, StageName, StageState } from "./stages.ts";
import { ProviderMatch } from "../providers/provider-match.ts";
import { AudioMetadata, ImageMetadata, Loudness, PaletteColor, Placeholder, Storyboard, Thumbnail, VideoMetadata, Waveform } from "./data.ts";
import { Page, PageMedia, Streaming, StreamPreviewPlan } from "./streaming-page.ts";

/** What the Range probe learned about the target (one probe per resource). */
export const ProbeResult = z.object({
  finalUrl: z.string(),
  status: z.number().int(),
  mime: z.string(),
  declaredMime: z.string().optional(),
  sizeBytes: z.number().int().optional(),
  filename: z.string().optional(),
  streamable: z.boolean(),
  bytesFetched: z.number().int(),
  redirects: z.number().int(),
  headers: z.record(z.string(), z.string()),
  title: z.string().optional(),
  oembedDiscoveryUrl: z.string().optional(),
  /** What decided the category and the facts (e.g. "tracks:matroska-tracks", "duration:mp3-frames"). */
  evidence: z.array(z.string()).optional(),
});
export type ProbeResult = z.infer<typeof ProbeResult>;

/** Traffic to the origin: body bytes, HTTP requests and redirect hops followed. */
export const Transfer = z.object({
  bytes: z.number().int().nonnegative(),
  requests: z.number().int().nonnegative(),
  redirects: z.number().int().nonnegative(),
});
export type Transfer = z.infer<typeof Transfer>;

export const StageRecord = z.object({
  state: StageState,
  attempts: z.number().int().default(0),
  /** When the stage was put on the queue (a re-send happens only if this is stale). */
  queuedAt: z.number().optional(),
  /** When an engine began working on it. */
  startedAt: z.number().optional(),
  finishedAt: z.number().optional(),
  durationMs: z.number().optional(),
  error: z.string().optional(),
  /** Where the work ran: the Worker isolate ("edge") or the media runner. */
  engine: z.enum(["edge", "runner", "provider"]).optional(),
  /** The stage's own origin traffic and how it read the file, when the engine reports them (storyboard). */
  bytesPulled: z.number().int().nonnegative().optional(),
  requests: z.number().int().nonnegative().optional(),
  method: z.string().optional(),
});
export type StageRecord = z.infer<typeof StageRecord>;

/** A provider match (URL registry or oEmbed discovery), as stored in the record. */
export const ProviderRecord = ProviderMatch.extend({
  detectionMethod: z.enum(["url-parser", "oembed-discovery"]),
});
export type ProviderRecord = z.infer<typeof ProviderRecord>;

/** Results written by stages; a missing key with a done stage means the stage produced nothing. */
export const StageResults = z.object({
  title: z.string().optional(),
  oembed: z.record(z.string(), z.unknown()).optional(),
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
  /** Where the runner reads a stream's previews from. */
  streamPreview: StreamPreviewPlan.optional(),
  /** Web page facts from the head (without the media, which has its own stage). */
  page: Page.omit({ media: true }).optional(),
  pageMedia: PageMedia.optional(),
  /** Media URLs the page names, best first, for the page:media stage. */
  pageMediaUrls: z.array(z.string()).optional(),
});
export type StageResults = z.infer<typeof StageResults>;

/** The canonical record a ResourceObject owns. Everything the API returns is projected from it. */
export const ResourceRecord = z.object({
  key: z.string(),
  url: z.string(),
  normalizedUrl: z.string(),
  category: MediaCategory,
  probe: ProbeResult,
  provider: ProviderRecord.optional(),
  stages: z.partialRecord(StageName, StageRecord),
  results: StageResults,
  timings: z.record(z.string(), z.number()),
  /** What the whole inspection pulled from the origin (edge and runner together). */
  transfer: Transfer.optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
  expiresAt: z.number(),
  /** When the origin last confirmed this record (a conditional request answered 304); absent: createdAt. */
  validatedAt: z.number().optional(),
});
export type ResourceRecord = z.infer<typeof ResourceRecord>;
