/**
 * Previews of an HLS or DASH stream from one early segment of its lowest-bandwidth video variant (planned by the
 * Worker). ffmpeg reads it through a manifest session on the loopback proxy: for HLS the variant's media
 * playlist cut to its first segment (its key and init section come with it), for DASH a one-segment playlist
 * written here around the init and media segments. Every URL it opens is a proxy URL, checked like any source.
 */
import type { RunnerRequest, RunnerResponse, StreamPreviewPlanInput } from "../../../shared/shapes/runner.ts";
import { RunnerError } from "../errors.ts";
import { extractFrame } from "../media/frame.ts";
import { decodeToRaster } from "../media/previews.ts";
import { hlsInputArgs } from "../proxy/hls-input-args.ts";
import { manifestSessionsOf } from "../proxy/manifest-session.ts";
import { RemoteSource, defaultSourceLimits } from "../fetch/remote-source.ts";
import type { UpstreamContext } from "../fetch/upstream.ts";
import { Timings, type JobContext } from "./context.ts";
import { renderPreviews } from "./preview-stages.ts";

/** A segment longer than this is unusual; the declared duration only has to cover the one segment. */
const syntheticSegmentSeconds = 60;

export async function runStreamJob(request: RunnerRequest, plan: StreamPreviewPlanInput, ctx: JobContext): Promise<RunnerResponse> {
  const timings = new Timings();
  const started = performance.now();
  const { config, binaries } = ctx;
  const upstream: UpstreamContext = {
    dispatcher: ctx.dispatcher, allowlist: config.allowlist, maxRedirects: config.maxRedirects, fetchTimeoutMs: config.fetchTimeoutMs, signal: ctx.signal,
  };
  const limits = { ...defaultSourceLimits, maxSourceBytes: config.maxSourceBytes };
  const opened = manifestSessionsOf(ctx.proxy).open(entryPlaylist(plan), {
    upstream,
    allowlist: config.allowlist,
    newSource: (url) => new RemoteSource(url, upstream, limits),
    keepSegments: 1,
  });
  const { session } = opened;
  const signal = AbortSignal.any([ctx.signal, session.signal]);
  try {
    const rendered = await renderPreviews(
      request,
      () => timings.time("frame", async () => {
        const png = await extractFrame(opened.url, 0, {
          ffmpeg: binaries.ffmpeg, timeoutMs: config.processTimeoutMs, maxPixels: config.maxDecodePixels, maxPx: request.thumbnailMaxPx,
          mode: "exact", signal, inputArgs: hlsInputArgs(config.maxDecodePixels), httpProxy: ctx.proxy.baseUrl,
        }).catch((error: unknown) => {
          throw session.failure ?? error;
        });
        if (!png) throw session.failure ?? new RunnerError("CORRUPT_MEDIA", "no video frame could be decoded from the stream's first segment");
        return decodeToRaster(png, request.thumbnailMaxPx, config.maxDecodePixels);
      }),
      timings,
      // An origin failure or the job's time running out say nothing about the stream: the whole job fails.
      (error) => ctx.signal.aborted || (error instanceof RunnerError && ["PROCESSING_TIMEOUT", "UPSTREAM_TIMEOUT", "BAD_GATEWAY"].includes(error.code)),
    );
    const bytesFetched = session.sources.reduce((sum, source) => sum + source.bytesFetched, 0);
    return {
      ...rendered.previews,
      stages: rendered.stages,
      timings: { ...timings.values, total: Math.round(performance.now() - started) },
      bytesFetched,
    };
  } finally {
    opened.release();
  }
}

/** HLS: the variant's own media playlist. DASH: a playlist of the init section and the one segment. */
function entryPlaylist(plan: StreamPreviewPlanInput): URL | { text: string; base: URL } {
  if (plan.protocol === "hls" && plan.playlistUrl) return new URL(plan.playlistUrl);
  const lines = ["#EXTM3U", "#EXT-X-VERSION:7", `#EXT-X-TARGETDURATION:${syntheticSegmentSeconds}`, "#EXT-X-PLAYLIST-TYPE:VOD"];
  if (plan.initUrl) lines.push(`#EXT-X-MAP:URI="${plan.initUrl.replace(/"/g, "%22")}"`);
  lines.push(`#EXTINF:${syntheticSegmentSeconds}.0,`, plan.segmentUrl.replace(/[\r\n]/g, ""), "#EXT-X-ENDLIST");
  return { text: lines.join("\n") + "\n", base: new URL(plan.segmentUrl) };
}
