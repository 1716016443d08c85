import { z } from "zod";

/** Enrichment stage names (SPEC 2.1). Declared once; the registry below says which apply to a category. */
export const stageNames = [
  "semantic",
  "mediaFormat",
  "oembed",
  "metadata:image",
  "metadata:video",
  "metadata:audio",
  "preview:thumbnail",
  "preview:blurhash",
  "preview:palette",
] as const;
export const StageName = z.enum(stageNames).meta({ id: "StageName" });
export type StageName = z.infer<typeof StageName>;

export const mediaCategories = ["image", "video", "audio", "embedded", "webpage"] as const;
export const MediaCategory = z.enum(mediaCategories);
export type MediaCategory = z.infer<typeof MediaCategory>;

/** Stages registered per media category (SPEC 2.6): what "complete" means for a resource. */
export const stagesByCategory: Readonly<Record<MediaCategory, readonly StageName[]>> = {
  image: ["semantic", "mediaFormat", "metadata:image", "preview:thumbnail", "preview:blurhash", "preview:palette"],
  video: ["semantic", "mediaFormat", "metadata:video", "preview:thumbnail", "preview:blurhash", "preview:palette"],
  audio: ["semantic", "mediaFormat", "metadata:audio"],
  embedded: ["semantic", "mediaFormat", "oembed"],
  webpage: ["semantic", "mediaFormat"],
};

/** Stages whose work is generated previews (hidden by the `fast` profile). */
export const previewStages: readonly StageName[] = ["preview:thumbnail", "preview:blurhash", "preview:palette"];

export const StageState = z.enum(["pending", "done", "failed"]);
export type StageState = z.infer<typeof StageState>;
