/** The visual stages, declared once in order, each computed from the shared thumbnail-sized raster. */
import type { RunnerRequest, RunnerResponse, RunnerStage } from "../../../shared/schemas/runner.ts";
import { paletteOf, placeholderOf, thumbnailOf, type Raster } from "../media/previews.ts";
import type { Timings } from "./context.ts";

type Previews = Pick<RunnerResponse, "thumbnail" | "placeholder" | "dominantColor" | "palette">;

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

export async function renderPreviews(request: RunnerRequest, raster: Raster, timings: Timings): Promise<Previews> {
  let out: Previews = {};
  for (const { stage, run } of previewStages) {
    if (request.stages.includes(stage)) out = { ...out, ...(await timings.time(stage, () => run(raster))) };
  }
  return out;
}
