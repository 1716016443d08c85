/**
 * The stages over a file's whole timeline, asked for with `expand`: the storyboard of a video (keyframes by
 * Range) and the waveform and loudness of audio (the whole audio, within the size cap and the job's
 * deadline). Each ends on its own, like the previews: failing one never fails the metadata.
 */
import type { RunnerRequest, RunnerResponse } from "../../../shared/shapes/runner.ts";
import type { FfprobeOutput, FfprobeStream } from "../media/ffprobe.ts";
import { durationSeconds, toVideoMetadata } from "../media/metadata.ts";
import type { RemoteSource } from "../fetch/remote-source.ts";
import { buildStoryboard, maxKeyframeRequests } from "../media/storyboard.ts";
import { buildWaveform } from "../media/waveform.ts";
import { checkWaveformDeclaration } from "../media/work-walls.ts";
import { positive } from "../media/ffprobe.ts";
import type { JobContext, Timings } from "./context.ts";
import { failureReason, type StageOutcomes } from "./preview-stages.ts";

type TimelineResults = Pick<RunnerResponse, "storyboard" | "waveform" | "audiowaveform" | "loudness">;

/** Origin requests kept back from the storyboard's keyframe reads for the rest of the job. */
const keyframeRequestReserve = 8;

/** Origin bytes kept back from the storyboard's forward decoding for the rest of the job. */
const forwardByteReserve = 4 * 1024 * 1024;

/** What decoding forward may read: what the job's byte budget leaves, less a reserve (no budget: no cap here). */
function forwardByteAllowance(ctx: JobContext): number | undefined {
  return ctx.budget ? Math.max(0, ctx.budget.limit.bytes - ctx.budget.used.bytes - forwardByteReserve) : undefined;
}

/** The keyframe reads' share of the job's request budget: what is left less a reserve, within the storyboard's own cap. */
function keyframeRequestAllowance(ctx: JobContext): number {
  const left = ctx.budget ? ctx.budget.limit.requests - ctx.budget.used.requests : maxKeyframeRequests;
  return Math.max(1, Math.min(maxKeyframeRequests, left - keyframeRequestReserve));
}

/** Pixels the decoder allocates per frame: the coded size when ffprobe gives it, else the picture's. */
function codedPixels(video: FfprobeStream): number {
  const w = typeof video.coded_width === "number" && video.coded_width > 0 ? video.coded_width : video.width ?? 0;
  const h = typeof video.coded_height === "number" && video.coded_height > 0 ? video.coded_height : video.height ?? 0;
  return Math.max(w * h, (video.width ?? 0) * (video.height ?? 0));
}

export function wantsTimeline(request: RunnerRequest): boolean {
  return request.stages.includes("storyboard") || request.stages.includes("waveform");
}

export async function timelineStages(
  request: RunnerRequest,
  input: string,
  source: RemoteSource,
  probed: FfprobeOutput,
  streams: { video: FfprobeStream | undefined; audio: FfprobeStream | undefined },
  ctx: JobContext,
  timings: Timings,
  rethrow: (error: unknown) => boolean,
): Promise<{ results: TimelineResults; stages: StageOutcomes }> {
  const { config, binaries, signal } = ctx;
  const engine = { ffmpeg: binaries.ffmpeg, maxPixels: config.maxDecodePixels, signal, httpProxy: ctx.proxy.baseUrl };
  const results: TimelineResults = {};
  const stages: StageOutcomes = {};
  const attempt = async (stage: "storyboard" | "waveform", work: () => Promise<TimelineResults>) => {
    try {
      Object.assign(results, await timings.time(stage, work));
      stages[stage] = { status: "done" };
    } catch (error) {
      if (rethrow(error)) throw error;
      stages[stage] = { status: "failed", reason: failureReason(error) };
    }
  };
  if (request.stages.includes("storyboard")) {
    const { video } = streams;
    if (!video || request.category === "audio") stages.storyboard = { status: "skipped", reason: "the file has no picture stream" };
    else {
      const facts = toVideoMetadata(probed, video);
      // The stage's own traffic (diagnostics): what the source pulled while it ran.
      const before = { bytes: source.bytesFetched, requests: source.requests };
      let method: string | undefined;
      await attempt("storyboard", async () => {
        const built = await buildStoryboard(input, {
          durationSeconds: durationSeconds(probed, video) ?? 0, width: facts.width ?? 0, height: facts.height ?? 0, rotation: facts.rotation ?? 0,
          framePixels: codedPixels(video),
        }, { ...engine, timeoutMs: config.processTimeoutMs }, {
          source, formatName: probed.format?.format_name, maxRequests: keyframeRequestAllowance(ctx),
          ...(forwardByteAllowance(ctx) !== undefined ? { maxForwardBytes: forwardByteAllowance(ctx)! } : {}),
        });
        method = built.fallback !== undefined ? `${built.method} (${built.fallback})`.slice(0, 200) : built.method;
        return { storyboard: built.storyboard };
      });
      stages.storyboard = {
        ...stages.storyboard!, bytesPulled: source.bytesFetched - before.bytes, requests: source.requests - before.requests,
        ...(method !== undefined ? { method } : {}),
      };
    }
  }
  if (request.stages.includes("waveform")) {
    const { audio } = streams;
    if (!audio) stages.waveform = { status: "skipped", reason: "the file has no audio stream" };
    // The whole audio is decoded: the job's deadline (signal) bounds it, not the per-step limit.
    else {
      const shape = { durationSeconds: durationSeconds(probed, audio) ?? 0, sampleRate: Number(audio.sample_rate ?? 0), channels: audio.channels ?? 0 };
      await attempt("waveform", () => {
        // What the header declares decides before any decoding (work-walls.ts); the engine budget bounds the rest.
        checkWaveformDeclaration(shape.durationSeconds, audio.channels, positive(audio.sample_rate));
        return buildWaveform(input, shape, { ...engine, timeoutMs: config.jobTimeoutMs });
      });
    }
  }
  return { results, stages };
}
