import { z } from "zod";
import { stageNames, stagesFor } from "../stages/registry.ts";
import { MediaCategory, mediaCategories } from "../shapes/media-category.ts";

/** Enrichment stage names, as the stage registry (shared/stages/registry.ts) declares them. */
export { stageNames };
export const StageName = z.enum(stageNames).meta({ id: "StageName" });
export type StageName = z.infer<typeof StageName>;

export { MediaCategory, mediaCategories };

/** Stages registered per media category, derived from the registry: what "complete" means. */
export const stagesByCategory: Readonly<Record<MediaCategory, readonly StageName[]>> = {
  image: stagesFor("image"),
  video: stagesFor("video"),
  audio: stagesFor("audio"),
  embedded: stagesFor("embedded"),
  webpage: stagesFor("webpage"),
};

export const StageState = z.enum(["pending", "done", "failed"]);
export type StageState = z.infer<typeof StageState>;

/** Why a stage failed (one short line): shown with `debug=true` and in `full`'s diagnostics. */
export const StageError = z.object({
  stage: StageName,
  reason: z.string().meta({ description: "Short reason, e.g. \"CORRUPT_MEDIA: no video frame could be decoded\"" }),
});
export type StageError = z.infer<typeof StageError>;
