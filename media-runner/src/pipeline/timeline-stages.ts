/**
 * The stages over a file's whole timeline, asked for with `expand`: the storyboard of a video (keyframes by
 * Range) and the waveform and loudness of audio (the whole audio, within the size cap and the job's
 * deadline). Each ends on its own, like the previews: failing one never fails the metadata.
 */
import type { RunnerRequest, RunnerResponse } from "../../../shared/shapes/runner.ts";
import type { FfprobeOutput, FfprobeStream } from "../media/ffprobe.ts";
import { durationSeconds, toVideoMetadata } from "../media/metadata.ts";
import { buildStoryboard } from "../media/storyboard.ts";
import { buildWaveform } from "../media/waveform.ts";
import type { JobContext, Timings } from "./context.ts";
import { failureReason, type StageOutcomes } from "./preview-stages.ts";

type TimelineResults = Pick<RunnerResponse, "storyboard" | "waveform" | "loudness">;

export function wantsTimeline(request: RunnerRequest): boolean {
  return request.stages.includes("storyboard") || request.stages.includes("waveform");
}

export async function timelineStages(
  request: RunnerRequest,
  input: string,
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
      await attempt("storyboard", async () => ({
        storyboard: await buildStoryboard(input, {
          durationSeconds: durationSeconds(probed, video) ?? 0, width: facts.width ?? 0, height: facts.height ?? 0,
        }, { ...engine, timeoutMs: config.processTimeoutMs }),
      }));
    }
  }
  if (request.stages.includes("waveform")) {
    const { audio } = streams;
    if (!audio) stages.waveform = { status: "skipped", reason: "the file has no audio stream" };
    // The whole audio is decoded: the job's deadline (signal) bounds it, not the per-step limit.
    else await attempt("waveform", () => buildWaveform(input, durationSeconds(probed, audio) ?? 0, { ...engine, timeoutMs: config.jobTimeoutMs }));
  }
  return { results, stages };
}
