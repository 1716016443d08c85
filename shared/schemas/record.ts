import { z } from "zod";
import { MediaCategory, StageName, StageState } from "./stages.ts";
import { ProviderMatch } from "../providers/provider-match.ts";
import { StageResults } from "../shapes/stage-results.ts";

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
  /** A streaming segment: "init" (tracks and codecs, no samples) or "media" (samples, no track list). */
  segment: z.enum(["init", "media"]).optional(),
  /** An MP4/MOV whose user data, or a JPEG whose metadata segments, run past the bytes read: the one Range read that completes metadata:provenance. */
  metadataTail: z.object({ offset: z.number().int().nonnegative(), length: z.number().int().positive() }).optional(),
  /** A sidecar C2PA manifest store declared (Link rel="c2pa-manifest", XMP dcterms:provenance) and not yet read. */
  c2paSidecar: z.string().optional(),
});
export type ProbeResult = z.infer<typeof ProbeResult>;

/** Traffic to the origin: body bytes, HTTP requests and redirect hops followed. */
export const Transfer = z.object({
  bytes: z.number().int().nonnegative(),
  requests: z.number().int().nonnegative(),
  redirects: z.number().int().nonnegative(),
  /** Engine milliseconds the runner spent on the inspection, failed jobs included (its engine-time budget). */
  engineMs: z.number().int().nonnegative().optional(),
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

export { StageResults };
