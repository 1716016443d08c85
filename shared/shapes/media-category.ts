import { z } from "zod";

/** What a URL is, at the top level: each category registers its own stages. */
export const mediaCategories = ["image", "video", "audio", "embedded", "webpage"] as const;
export const MediaCategory = z.enum(mediaCategories);
export type MediaCategory = z.infer<typeof MediaCategory>;
