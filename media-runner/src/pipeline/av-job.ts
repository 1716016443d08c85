/**
 * Video and audio: ffprobe for metadata, one ffmpeg frame for the previews, both through the Range proxy.
 * Metadata and previews end independently: a file whose frame cannot be decoded still reports what ffprobe
 * read. The streams decide what the file is (`detected`), whatever category the request assumed.
 */
import type { RunnerCategory, RunnerRequest, RunnerResponse } from "../../../shared/shapes/runner.ts";
import { RunnerError } from "../errors.ts";
import type { RemoteSource, SourceSeed } from "../fetch/remote-source.ts";
import { moovEndFromHead } from "../media/mp4-keyframes.ts";
import { isInitSegment } from "../media/init-segment.ts";
import { prefetchKeyframe } from "../media/mp4-source.ts";
import { extractFrame, representativeTime, type SeekMode } from "../media/frame.ts";
import { isCliFallback, workerFrame } from "../media/engine-worker/worker-frame.ts";
import { probe, type FfprobeOutput } from "../media/ffprobe.ts";
import { audioStream, durationSeconds, toAudioMetadata, toCodecs, toVideoMetadata, videoStream } from "../media/metadata.ts";
import { decodeToRaster, isMostlyBlack, type Raster } from "../media/previews.ts";
import { coverArtMap, coverArtRaster } from "../media/cover-art.ts";
import { probeDetails, toTracks, withDetails } from "../media/tracks.ts";
import { engineStep, type JobContext, type Timings } from "./context.ts";
import { previewsEndedAs, renderPreviews, wantsPreview, type StageOutcomes } from "./preview-stages.ts";
import { timelineStages, wantsTimeline } from "./timeline-stages.ts";

/** Bytes a Matroska first read may reach (one paced chain's worth: more would be a guess too costly when wrong). */
const matroskaFirstReadMaxBytes = 1024 * 1024;
/** Margin over the bytes before the frame's time at the file's mean rate (the rate varies; the cluster runs on). */
const matroskaFirstReadMargin = 1.25;

/**
 * How far the job's first origin request should reach: to the end of an MP4/MOV moov the edge's head shows; for
 * a Matroska/WebM video, through the bytes before the frame's time at the file's mean rate (ffmpeg reads a file
 * without cues, like a screen recording, from its start to the frame; with cues it seeks to a cluster about
 * there): one request instead of a chain of paced ones, when that is at most matroskaFirstReadMaxBytes.
 */
export function avFirstEnd(request: RunnerRequest, seed: SourceSeed | undefined): Promise<number | undefined> {
  if (!seed) return Promise.resolve(undefined);
  const moovEnd = moovEndFromHead(seed.bytes, seed.size);
  if (moovEnd !== undefined) return Promise.resolve(moovEnd - 1);
  const duration = request.durationHint;
  if (request.category === "video" && isMatroska(seed.bytes) && duration !== undefined && duration > 0) {
    const end = Math.round(seed.size * (representativeTime(duration) / duration) * matroskaFirstReadMargin) + 64 * 1024;
    if (end <= matroskaFirstReadMaxBytes) return Promise.resolve(Math.min(end, seed.size - 1));
  }
  return Promise.resolve(undefined);
}

/** The EBML magic that opens every Matroska and WebM file. */
function isMatroska(head: Buffer): boolean {
  return head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3;
}

export async function runAvJob(
  request: RunnerRequest,
  source: RemoteSource,
  ctx: JobContext,
  timings: Timings,
): Promise<Omit<RunnerResponse, "timings">> {
  // Paced: ffprobe and ffmpeg run with engineReconnectArgs (safeInputArgs).
  const registration = ctx.proxy.register(source, { paced: true });
  try {
    const input = registration.url;
    const { config, binaries, signal } = ctx;
    const fatal = (error: unknown) => source.failure !== undefined || signal.aborted || (error instanceof RunnerError && error.code === "PROCESSING_TIMEOUT");
    // The edge already has the metadata (not asked for) and the duration: ffprobe would only confirm a picture
    // stream, which a decoded frame (`-map 0:V:0`: video, not cover art) shows as well. One engine process,
    // not two, on the path a waiting caller takes. No frame: ffprobe below says what the file is.
    const frameOnly = request.category === "video" && request.durationHint !== undefined && !request.stages.includes("metadata")
      && !wantsTimeline(request) && wantsPreview(request);
    if (frameOnly) {
      const raster = await timings.time("frame", () => engineStep(source, () => representativeRaster(input, source, request.durationHint, request.thumbnailMaxPx, ctx)))
        .catch((error: unknown) => {
          if (fatal(error)) throw error;
          return undefined;
        });
      if (raster) {
        const rendered = await renderPreviews(request, () => Promise.resolve(raster), timings, fatal);
        return { detected: { category: "video", source: "ffmpeg" }, ...rendered.previews, stages: rendered.stages };
      }
    }
    // With the duration known from the edge, the frame does not wait for ffprobe: both run at once and share
    // the proxy's bytes. Its result is used only if ffprobe confirms a picture stream.
    const early = !frameOnly && request.durationHint !== undefined && request.category === "video" && wantsPreview(request)
      ? engineStep(source, () => representativeRaster(input, source, request.durationHint, request.thumbnailMaxPx, ctx))
      : undefined;
    early?.catch(() => {}); // awaited below when used; a rejection is not unhandled meanwhile
    // Nothing is readable when ffprobe is not: that fails the whole job (422 CORRUPT_MEDIA).
    // Chapters and caption side data: one more small ffprobe, only when the metadata is the runner's to give.
    const details = request.stages.includes("metadata")
      ? engineStep(source, () => probeDetails(input, { ffprobe: binaries.ffprobe, timeoutMs: config.processTimeoutMs, maxPixels: config.maxDecodePixels, signal, httpProxy: ctx.proxy.baseUrl })).catch(() => undefined)
      : undefined;
    const probed: FfprobeOutput = await timings.time("metadata", () =>
      engineStep(source, () =>
        probe(input, { ffprobe: binaries.ffprobe, timeoutMs: config.processTimeoutMs, maxPixels: config.maxDecodePixels, signal, httpProxy: ctx.proxy.baseUrl })));
    const video = videoStream(probed);
    const audio = audioStream(probed);
    if (!video && !audio) throw new RunnerError("UNSUPPORTED_MEDIA", "the file has no audio or video stream");
    // A picture stream that is not cover art makes a video; otherwise the sound makes audio.
    const detected: RunnerCategory = video ? "video" : "audio";
    const response: Omit<RunnerResponse, "timings"> = { detected: { category: detected, source: "ffprobe" } };
    const stages: StageOutcomes = {};
    if (request.stages.includes("metadata")) {
      response.metadata = {
        ...(video ? { video: toVideoMetadata(probed, video) } : {}),
        // Audio facts for audio files, and for a video asked for as audio (the caller's category, answered).
        ...(audio && (!video || request.category === "audio") ? { audio: toAudioMetadata(probed, audio) } : {}),
      };
      const codecs = toCodecs(probed, video, audio);
      if (codecs) response.metadata.codecs = codecs;
      const found = await details;
      response.metadata.tracks = withDetails(toTracks(probed), found);
      if (found?.chapters.length) response.metadata.chapters = found.chapters;
      stages.metadata = { status: "done" };
    }
    if (wantsTimeline(request)) {
      const timeline = await timelineStages(request, input, source, probed, { video, audio }, ctx, timings, fatal);
      Object.assign(response, timeline.results);
      Object.assign(stages, timeline.stages);
    }
    if (!wantsPreview(request)) return { ...response, stages };
    // Audio's one picture is its embedded cover art, when it has one; a video asked for as audio has none.
    if (!video || request.category === "audio") {
      const cover = video ? undefined : coverArtMap(probed);
      if (!cover) {
        const reason = video ? "the file has no picture stream to preview" : "the audio has no cover art";
        return { ...response, stages: { ...stages, ...previewsEndedAs(request, { status: "skipped", reason }) } };
      }
      const options = { ffmpeg: binaries.ffmpeg, timeoutMs: config.processTimeoutMs, maxPixels: config.maxDecodePixels, maxPx: request.thumbnailMaxPx, signal, httpProxy: ctx.proxy.baseUrl };
      const rendered = await renderPreviews(request, () => timings.time("frame", () => engineStep(source, () => coverArtRaster(input, cover, options))), timings, fatal);
      return { ...response, ...rendered.previews, stages: { ...stages, ...rendered.stages } };
    }
    // An initialization segment: the tracks are read, there is no sample to decode (its media segments hold them).
    if (await initSegment(source, probed)) {
      const reason = "an initialization segment: tracks and codecs, no samples to preview";
      return { ...response, stages: { ...stages, ...previewsEndedAs(request, { status: "skipped", reason }) } };
    }
    const rendered = await renderPreviews(
      request,
      () => timings.time("frame", () => early ?? engineStep(source, () => representativeRaster(input, source, durationSeconds(probed, video), request.thumbnailMaxPx, ctx))),
      timings,
      // The origin failing or the job's time running out say nothing about this file: the whole job fails.
      fatal,
    );
    return { ...response, ...rendered.previews, stages: { ...stages, ...rendered.stages } };
  } finally {
    registration.release();
  }
}

/** A small MP4 without a duration whose moov (with mvex) ends the file; its bytes are held after ffprobe's reads. */
async function initSegment(source: RemoteSource, probed: FfprobeOutput): Promise<boolean> {
  const size = source.size;
  const mp4 = /mp4|mov/.test(probed.format?.format_name ?? "");
  if (!mp4 || size === undefined || size > initSegmentMaxBytes || probed.format?.duration !== undefined) return false;
  // Held in the cache after ffprobe's reads; an origin without ranges has nothing to look at again.
  const head = await source.readExact(0, size - 1).catch(() => undefined);
  return head !== undefined && isInitSegment(head, size);
}

/** Initialization segments are a moov of a few kilobytes; larger files are not looked at. */
const initSegmentMaxBytes = 256 * 1024;

/**
 * A frame near 10% of the duration, as cheaply as possible: the keyframe at or before that time (one
 * frame's bytes, one decode). If it is black (a long first GOP opening on a fade-in), the next keyframe,
 * then the exact frame; if the time is past the last frame (one-frame files), the first frame.
 */
async function representativeRaster(input: string, source: RemoteSource, duration: number | undefined, maxPx: number, ctx: JobContext): Promise<Raster> {
  const { config, binaries, signal } = ctx;
  const options = { ffmpeg: binaries.ffmpeg, timeoutMs: config.processTimeoutMs, maxPixels: config.maxDecodePixels, maxPx, signal, httpProxy: ctx.proxy.baseUrl };
  const time = representativeTime(duration);
  // A decoder process where one can take the file (media/engine-worker/); once it cannot, the job's other tries
  // go to ffmpeg as before.
  let decoders = ctx.decoders;
  const frameAt = async (at: number, mode: SeekMode): Promise<Raster | undefined> => {
    if (decoders) {
      const raster = await workerFrame(decoders, source, at, mode, { maxPx, maxPixels: config.maxDecodePixels, timeoutMs: config.processTimeoutMs, signal });
      if (!isCliFallback(raster)) return raster;
      decoders = undefined;
    }
    const png = await extractFrame(input, at, { ...options, mode });
    return png ? decodeToRaster(png, maxPx, config.maxDecodePixels) : undefined;
  };
  // The keyframe's bytes travel while ffmpeg starts (about 200 ms of CPU): its reads then find them.
  prefetchKeyframe(source, time).catch(() => {}); // an origin failure is recorded on the source; the engine meets it too
  let fallback: Raster | undefined;
  for (const mode of ["keyframe-before", "keyframe-after", "exact"] as const) {
    const raster = await frameAt(time, mode);
    if (!raster) continue;
    if (!isMostlyBlack(raster) || time === 0) return raster;
    fallback ??= raster;
  }
  if (fallback) return fallback; // black at every try: the video is black there
  const first = time > 0 ? await frameAt(0, "keyframe-before") : undefined;
  if (!first) throw new RunnerError("CORRUPT_MEDIA", "no video frame could be decoded");
  return first;
}
