/**
 * The visual stages, declared once in order, each computed from the shared thumbnail-sized raster. Each
 * ends on its own: a picture that cannot be decoded fails the previews with a reason, never the metadata,
 * and one preview failing leaves the others.
 */
import type { RunnerRequest, RunnerResponse, RunnerStage, RunnerStageOutcome } from "../../../shared/shapes/runner.ts";
import { paletteOf, placeholderOf, thumbnailOf, type Raster } from "../media/previews.ts";
import type { Timings } from "./context.ts";
import { isRunnerError } from "../errors.ts";

type Previews = Pick<RunnerResponse, "thumbnail" | "placeholder" | "dominantColor" | "palette">;
export type StageOutcomes = Partial<Record<RunnerStage, RunnerStageOutcome>>;

const previewStages: ReadonlyArray<{ stage: RunnerStage; run: (raster: Raster) => Promise<Previews> }> = [
  { stage: "thumbnail", run: async (raster) => ({ thumbnail: await thumbnailOf(raster) }) },
  { stage: "placeholder", run: async (raster) => ({ placeholder: await placeholderOf(raster) }) },
  {
    stage: "palette",
    run: async (raster) => {
      const { dominant, colors } = await paletteOf(raster);
      return { dominantColor: dominant, palette: colors };
    },
  },
];

export function wantsPreview(request: RunnerRequest): boolean {
  return previewStages.some(({ stage }) => request.stages.includes(stage));
}

/** A failure as one short public line: the error code and message, never engine output or paths. */
export function failureReason(error: unknown): string {
  if (isRunnerError(error)) return `${error.code}: ${error.message}`;
  return "INTERNAL_ERROR: the stage failed unexpectedly";
}

/** Marks every requested preview stage with the same outcome (skipped when there is no picture, failed when it cannot be decoded). */
export function previewsEndedAs(request: RunnerRequest, outcome: RunnerStageOutcome): StageOutcomes {
  const out: StageOutcomes = {};
  for (const { stage } of previewStages) if (request.stages.includes(stage)) out[stage] = outcome;
  return out;
}

/**
 * Gets the raster once, then runs each requested preview stage. `rethrow` says which errors end the whole
 * job instead (origin failures and time limits: the Worker retries those, they say nothing about the file).
 */
export async function renderPreviews(
  request: RunnerRequest,
  raster: () => Promise<Raster>,
  timings: Timings,
  rethrow: (error: unknown) => boolean,
): Promise<{ previews: Previews; stages: StageOutcomes }> {
  let picture: Raster;
  try {
    picture = await raster();
  } catch (error) {
    if (rethrow(error)) throw error;
    return { previews: {}, stages: previewsEndedAs(request, { status: "failed", reason: failureReason(error) }) };
  }
  let previews: Previews = {};
  const stages: StageOutcomes = {};
  for (const { stage, run } of previewStages) {
    if (!request.stages.includes(stage)) continue;
    try {
      previews = { ...previews, ...(await timings.time(stage, () => run(picture))) };
      stages[stage] = { status: "done" };
    } catch (error) {
      if (rethrow(error)) throw error;
      stages[stage] = { status: "failed", reason: failureReason(error) };
    }
  }
  return { previews, stages };
}
