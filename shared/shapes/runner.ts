/**
 * Media runner API, version 1 (POST /v1/process). The Worker's queue consumer sends RunnerRequest and
 * reads RunnerResponse; the runner validates both ends with these schemas. Metadata shapes are the
 * ones of the public API, imported so that both sides cannot drift.
 */
import { z } from "zod";
import { AudioMetadata, AudioWaveform, ImageMetadata, Loudness, PaletteColor, paletteColorsMax, Placeholder, storyboardColumns, storyboardMaxTiles, VideoMetadata, Waveform } from "./media-data.ts";
import { StreamPreviewPlan } from "./streaming-page.ts";
import { inspectionEngineSecondsBudget, inspectionOriginByteBudget, inspectionOriginRequestBudget } from "../limits.ts";
import { Chapters, MediaTracks, Protection } from "./tracks.ts";
import { maxCodecEntries, maxCodecEntryLength } from "../media/codec-string.ts";

export const runnerApiVersion = "v1";
export const runnerProcessPath = "/v1/process";
export const runnerHealthPath = "/v1/health";

export const runnerCategories = ["video", "audio", "image"] as const;
export const RunnerCategory = z.enum(runnerCategories);
export type RunnerCategory = z.infer<typeof RunnerCategory>;

export const runnerStages = ["metadata", "thumbnail", "placeholder", "palette", "storyboard", "waveform"] as const;
export const RunnerStage = z.enum(runnerStages);
export type RunnerStage = z.infer<typeof RunnerStage>;

/** Thumbnails fit in a square of this many pixels unless the request says otherwise. */
export const defaultThumbnailMaxPx = 320;
/** Upper bound of thumbnailMaxPx: a thumbnail, not a transcode. */
export const maxThumbnailMaxPx = 1280;

/**
 * Most bytes of the file the edge hands over with a direct runner call (its probe head, or the whole of a
 * small file): sent base64 in the JSON body, so the runner's body limit grows by this much.
 */
export const runnerHeadMaxBytes = 256 * 1024;
const runnerHeadMaxBase64 = Math.ceil(runnerHeadMaxBytes / 3) * 4;
/**
 * Most bytes of the file's end the edge hands over (its suffix read, and a moov-last MP4's moov read with it):
 * the runner's engines read a moov-last file's index there first.
 */
export const runnerTailMaxBytes = 128 * 1024;
const runnerTailMaxBase64 = Math.ceil(runnerTailMaxBytes / 3) * 4;
/** The runner's request body limit: the head's and tail's base64 plus room for the rest of the request. */
export const runnerRequestMaxBytes = runnerHeadMaxBase64 + runnerTailMaxBase64 + 16 * 1024;

/** Decoded length of canonical base64 (length a multiple of 4, at most two `=`). */
function base64DecodedLength(value: string): number {
  return (value.length / 4) * 3 - (value.endsWith("==") ? 2 : value.endsWith("=") ? 1 : 0);
}

/** A header value as the edge saw it: printable ASCII only (it goes back out in If-Range). */
const validatorValue = z.string().min(1).max(256).regex(/^[\x20-\x7e]+$/);

/** Canonical base64 of at most `max` characters. */
function base64Of(max: number) {
  return z.string().min(4).max(max).regex(/^[A-Za-z0-9+/]*={0,2}$/)
    .refine((value) => value.length % 4 === 0, "base64 length must be a multiple of 4");
}

export const RunnerHead = z.object({
  base64: base64Of(runnerHeadMaxBase64).meta({ description: "The file's first bytes (from offset 0), base64" }),
  size: z.number().int().positive().max(2 ** 40).meta({ description: "The file's size as the edge saw it" }),
  etag: validatorValue.optional().meta({ description: "ETag of the edge's response" }),
  lastModified: validatorValue.optional().meta({ description: "Last-Modified of the edge's response" }),
  tail: z.object({
    offset: z.number().int().positive().max(2 ** 40).meta({ description: "File offset of the first byte" }),
    base64: base64Of(runnerTailMaxBase64).meta({ description: "The file's bytes from `offset` to its end, base64" }),
  }).optional().meta({ description: "The file's last bytes, when the edge read them (used with the head, under the same checks)" }),
}).refine((head) => base64DecodedLength(head.base64) <= head.size, { message: "more bytes than the file's size", path: ["base64"] })
  .refine((head) => !head.tail || head.tail.offset + base64DecodedLength(head.tail.base64) === head.size,
    { message: "the tail must end at the file's size", path: ["tail"] });
export type RunnerHead = z.infer<typeof RunnerHead>;

/** What is left of the inspection's origin budget when the Worker calls the runner (shared/limits.ts). */
export const RunnerBudget = z.object({
  requests: z.number().int().nonnegative().max(inspectionOriginRequestBudget)
    .meta({ description: "Origin requests the runner may still make for this job (every redirect hop counts)" }),
  bytes: z.number().int().nonnegative().max(inspectionOriginByteBudget)
    .meta({ description: "Bytes the runner may still pull from origins for this job" }),
  engineMs: z.number().int().nonnegative().max(inspectionEngineSecondsBudget * 1000).optional()
    .meta({ description: "Engine milliseconds (wall time of engine processes, summed) this job may still spend; absent: the whole inspectionEngineSecondsBudget" }),
});
export type RunnerBudget = z.infer<typeof RunnerBudget>;

/**
 * The caller whose inspection started the work, as an opaque key (a hash the Worker makes of the client's
 * address, never the address): the runner shares its slots and CPU per caller, then per origin.
 */
export const RunnerClient = z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/);
export type RunnerClient = z.infer<typeof RunnerClient>;

export const RunnerRequest = z.object({
  url: z
    .string()
    .url()
    .refine((value) => URL.canParse(value) && /^https?:$/i.test(new URL(value).protocol), "only http: and https: URLs are fetched")
    .meta({ description: "Public http(s) URL of the media; fetched by the runner through its SSRF checks" }),
  category: RunnerCategory,
  stages: z.array(RunnerStage).min(1).max(runnerStages.length)
    .meta({ description: "Work wanted; audio's one picture is its embedded cover art (the thumbnail; skipped when it has none), placeholder and palette are skipped" }),
  thumbnailMaxPx: z.number().int().min(16).max(maxThumbnailMaxPx).default(defaultThumbnailMaxPx)
    .meta({ description: "The thumbnail fits in a square of this size (never upscaled)" }),
  durationHint: z.number().nonnegative().max(1e7).optional()
    .meta({ description: "Seconds, from the container header the edge already read: the frame extraction starts at once, alongside ffprobe, instead of after it" }),
  head: RunnerHead.optional()
    .meta({ description: "Bytes the edge already read: they seed the runner's cache (not fetched again) when the origin's first answer shows the same file (size, ETag, Last-Modified; sent as If-Range). Direct calls only; queue retries omit it" }),
  stream: StreamPreviewPlan.optional()
    .meta({ description: "For an HLS/DASH `url`: the one early segment previews are read from (planned by the Worker from the manifest)" }),
  client: RunnerClient.optional()
    .meta({ description: "Opaque key of the caller whose inspection started the work: slots and CPU are shared per caller, then per origin (absent: one shared caller)" }),
  budget: RunnerBudget.optional()
    .meta({ description: "What the Worker left of the inspection's origin budget; absent means the whole budget (inspectionOriginRequestBudget, inspectionOriginByteBudget). Past it the job fails with PAYLOAD_TOO_LARGE naming the budget" }),
});
export type RunnerRequest = z.infer<typeof RunnerRequest>;
export type StreamPreviewPlanInput = NonNullable<RunnerRequest["stream"]>;
/** What a caller may send (defaults not applied yet). */
export type RunnerRequestInput = z.input<typeof RunnerRequest>;

export const RunnerThumbnail = z.object({
  base64: z.string().meta({ description: "WebP bytes, base64" }),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  contentType: z.literal("image/webp"),
});
export type RunnerThumbnail = z.infer<typeof RunnerThumbnail>;

/** A storyboard sprite: tiles laid left to right, top to bottom, `columns` wide. */
export const RunnerStoryboard = z.object({
  base64: z.string().meta({ description: "WebP sprite bytes, base64" }),
  contentType: z.literal("image/webp"),
  tiles: z.number().int().positive().max(storyboardMaxTiles),
  columns: z.number().int().positive().max(storyboardColumns),
  tileWidth: z.number().int().positive(),
  tileHeight: z.number().int().positive(),
  interval: z.number().positive(),
  frameTimes: z.array(z.number().nonnegative()).max(storyboardMaxTiles).optional()
    .meta({ description: "Seconds (to the millisecond, rounded down) of the frame each tile shows" }),
  duration: z.number().positive().optional().meta({ description: "Seconds of the video: the last cue ends here" }),
});
export type RunnerStoryboard = z.infer<typeof RunnerStoryboard>;

export const RunnerMetadata = z.object({
  video: VideoMetadata.optional(),
  audio: AudioMetadata.optional(),
  image: ImageMetadata.optional(),
  codecs: z.array(z.string().max(maxCodecEntryLength)).max(maxCodecEntries).optional()
    .meta({ description: "RFC 6381 codecs entries of the tracks, video first (e.g. avc1.64001F, mp4a.40.2)" }),
  tracks: MediaTracks.optional().meta({ description: "Every video, audio and text track with language and disposition (ffprobe's streams)" }),
  chapters: Chapters.optional(),
  protection: Protection.optional(),
});
export type RunnerMetadata = z.infer<typeof RunnerMetadata>;

/** How one requested stage ended in the runner: a failed stage says why in one short line. */
export const RunnerStageOutcome = z.object({
  status: z.enum(["done", "failed", "skipped"])
    .meta({ description: "skipped: the stage does not apply to what the file turned out to be (e.g. previews of audio)" }),
  reason: z.string().max(200).optional().meta({ description: "Why the stage failed or was skipped" }),
  bytesPulled: z.number().int().nonnegative().optional()
    .meta({ description: "Origin body bytes the stage itself pulled (reported by stages that read on their own: storyboard)" }),
  requests: z.number().int().nonnegative().optional().meta({ description: "Origin requests the stage itself made" }),
  method: z.string().max(200).optional()
    .meta({ description: "How the stage read the file (storyboard: frames-by-range, keyframes-by-range, or seek-per-tile with the reason)" }),
});
export type RunnerStageOutcome = z.infer<typeof RunnerStageOutcome>;

/** What the runner's own reading of the streams says the file is (ffprobe, or the image decoder). */
export const RunnerDetected = z.object({
  category: RunnerCategory.meta({ description: "video when a picture stream other than cover art exists, else audio; image for images" }),
  source: z.string().meta({ description: "The evidence: ffprobe or the image decoder" }),
});
export type RunnerDetected = z.infer<typeof RunnerDetected>;

export const RunnerResponse = z.object({
  metadata: RunnerMetadata.optional(),
  thumbnail: RunnerThumbnail.optional(),
  placeholder: Placeholder.optional(),
  dominantColor: z.string().regex(/^#[0-9a-f]{6}$/).optional(),
  palette: z.array(PaletteColor).max(paletteColorsMax).optional()
    .meta({ description: "Palette colours, largest share first (shared/media/palette.ts); dominantColor is palette[0].hex" }),
  storyboard: RunnerStoryboard.optional(),
  waveform: Waveform.optional(),
  audiowaveform: AudioWaveform.optional().meta({ description: "The waveform's buckets as BBC audiowaveform JSON (with the waveform stage)" }),
  loudness: Loudness.optional().meta({ description: "EBU R128 of the whole audio (with the waveform stage)" }),
  timings: z.record(z.string(), z.number().int().nonnegative())
    .meta({ description: "Milliseconds per step (fetch, metadata, frame, thumbnail, placeholder, palette, total)" }),
  bytesFetched: z.number().int().nonnegative().optional()
    .meta({ description: "Bytes the runner pulled from the origin for this request" }),
  requests: z.number().int().nonnegative().optional().meta({ description: "HTTP requests the runner made to the origin" }),
  redirects: z.number().int().nonnegative().optional().meta({ description: "Redirect hops the runner followed" }),
  engineMs: z.number().int().nonnegative().optional()
    .meta({ description: "Engine milliseconds the job spent (wall time of its engine processes, summed), charged to the inspection's budget" }),
  stages: z.partialRecord(RunnerStage, RunnerStageOutcome).optional()
    .meta({ description: "Per requested stage: done, failed (with a reason) or skipped. Metadata and previews end independently." }),
  detected: RunnerDetected.optional()
    .meta({ description: "The category the streams show; differs from the request's when the Worker classified the file wrongly" }),
});
export type RunnerResponse = z.infer<typeof RunnerResponse>;

/** Error codes of the runner; the API's own ones keep their meaning and status. */
export const runnerErrorCodes = [
  "INVALID_PAYLOAD", // 400
  "UNAUTHORIZED", // 401
  "SSRF_BLOCKED", // 403
  "RESOURCE_NOT_FOUND", // 404: the origin answered 404
  "UPSTREAM_TIMEOUT", // 408
  "PAYLOAD_TOO_LARGE", // 413: over the source size cap
  "UNSUPPORTED_MEDIA", // 422: readable, but not the category asked for
  "CORRUPT_MEDIA", // 422: the engines cannot read it
  "IMAGE_TOO_LARGE", // 422: over the decode pixel limit (decompression bombs)
  "BAD_GATEWAY", // 502: the origin failed or answered nonsense
  "NOT_FOUND", // 404: no such runner route
  "RUNNER_BUSY", // 503: the job queue is full
  "PROCESSING_TIMEOUT", // 504: an engine ran past its time limit
  "INTERNAL_ERROR", // 500
] as const;
export const RunnerErrorCode = z.enum(runnerErrorCodes);
export type RunnerErrorCode = z.infer<typeof RunnerErrorCode>;

/** What a job spent before it failed: the Worker charges it to the inspection, so a retry gets only what is left. */
export const RunnerUsage = z.object({
  requests: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  engineMs: z.number().int().nonnegative(),
});
export type RunnerUsage = z.infer<typeof RunnerUsage>;

export const RunnerErrorBody = z.object({
  status: z.literal("error"),
  error: z.object({ code: RunnerErrorCode, message: z.string(), usage: RunnerUsage.optional() }),
});
export type RunnerErrorBody = z.infer<typeof RunnerErrorBody>;

export const RunnerHealth = z.object({
  status: z.literal("ok"),
  version: z.string(),
  active: z.number().int().nonnegative(),
  queued: z.number().int().nonnegative(),
  concurrency: z.number().int().positive(),
});
export type RunnerHealth = z.infer<typeof RunnerHealth>;
