/** Video and audio: ffprobe for metadata, one ffmpeg frame for the previews, both through the Range proxy. */
import type { RunnerRequest, RunnerResponse } from "../../../shared/schemas/runner.ts";
import { RunnerError } from "../errors.ts";
import type { RemoteSource } from "../fetch/remote-source.ts";
import { extractFrame, representativeTime } from "../media/frame.ts";
import { probe, type FfprobeOutput } from "../media/ffprobe.ts";
import { audioStream, durationSeconds, toAudioMetadata, toVideoMetadata, videoStream } from "../media/metadata.ts";
import { decodeToRaster, isMostlyBlack, type Raster } from "../media/previews.ts";
import { engineStep, type JobContext, type Timings } from "./context.ts";
import { renderPreviews, wantsPreview } from "./preview-stages.ts";

export async function runAvJob(
  request: RunnerRequest,
  source: RemoteSource,
  ctx: JobContext,
  timings: Timings,
): Promise<Omit<RunnerResponse, "timings">> {
  const registration = ctx.proxy.register(source);
  try {
    const input = registration.url;
    const { config, binaries, signal } = ctx;
    const probed: FfprobeOutput = await timings.time("metadata", () =>
      engineStep(source, () =>
        probe(input, { ffprobe: binaries.ffprobe, timeoutMs: config.processTimeoutMs, maxPixels: config.maxDecodePixels, signal })));
    const response: Omit<RunnerResponse, "timings"> = {};
    if (request.category === "audio") {
      const stream = audioStream(probed);
      if (!stream) throw new RunnerError("UNSUPPORTED_MEDIA", "the file has no audio stream");
      // Audio has no visual enrichments (SPEC 2.6): visual stages are ignored.
      if (request.stages.includes("metadata")) response.metadata = { audio: toAudioMetadata(probed, stream) };
      return response;
    }
    const stream = videoStream(probed);
    if (!stream) throw new RunnerError("UNSUPPORTED_MEDIA", "the file has no video stream");
    if (request.stages.includes("metadata")) response.metadata = { video: toVideoMetadata(probed, stream) };
    if (!wantsPreview(request)) return response;
    const raster = await timings.time("frame", () =>
      engineStep(source, () => representativeRaster(input, durationSeconds(probed, stream), request.thumbnailMaxPx, ctx)));
    return { ...response, ...(await renderPreviews(request, raster, timings)) };
  } finally {
    registration.release();
  }
}

/**
 * A frame near 10% of the duration, as cheaply as possible: the keyframe at or before that time (one
 * frame's bytes, one decode). If it is black (a long first GOP opening on a fade-in), the next keyframe,
 * then the exact frame; if the time is past the last frame (one-frame files), the first frame.
 */
async function representativeRaster(input: string, duration: number | undefined, maxPx: number, ctx: JobContext): Promise<Raster> {
  const { config, binaries, signal } = ctx;
  const options = { ffmpeg: binaries.ffmpeg, timeoutMs: config.processTimeoutMs, maxPixels: config.maxDecodePixels, maxPx, signal };
  const time = representativeTime(duration);
  let fallback: Raster | undefined;
  for (const mode of ["keyframe-before", "keyframe-after", "exact"] as const) {
    const png = await extractFrame(input, time, { ...options, mode });
    if (!png) continue;
    const raster = await decodeToRaster(png, maxPx, config.maxDecodePixels);
    if (!isMostlyBlack(raster) || time === 0) return raster;
    fallback ??= raster;
  }
  if (fallback) return fallback; // black at every try: the video is black there
  const first = time > 0 ? await extractFrame(input, 0, { ...options, mode: "keyframe-before" }) : undefined;
  if (!first) throw new RunnerError("CORRUPT_MEDIA", "no video frame could be decoded");
  return decodeToRaster(first, maxPx, config.maxDecodePixels);
}
