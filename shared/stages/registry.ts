/**
 * The stage registry: every enrichment stage, in the order they are reported. Adding a stage is one file
 * beside this one plus one line here; the Worker's state machine, queueing and runner mapping, and the
 * projection's processing state read from this list alone.
 */
import type { RunnerStage } from "../shapes/runner.ts";
import type { MediaCategory } from "../shapes/media-category.ts";
import type { StageDefinition, StageEngine, StageGroup } from "./definition.ts";
import { mediaFormat } from "./media-format.ts";
import { metadataAudio } from "./metadata-audio.ts";
import { metadataImage } from "./metadata-image.ts";
import { metadataVideo } from "./metadata-video.ts";
import { metadataProvenance } from "./metadata-provenance.ts";
import { oembed } from "./oembed.ts";
import { page } from "./page.ts";
import { pageMedia } from "./page-media.ts";
import { previewBlurhash } from "./preview-blurhash.ts";
import { previewPalette } from "./preview-palette.ts";
import { previewStoryboard } from "./preview-storyboard.ts";
import { previewThumbnail } from "./preview-thumbnail.ts";
import { previewWaveform } from "./preview-waveform.ts";
import { semantic } from "./semantic.ts";

export const stageRegistry = [
  semantic,
  mediaFormat,
  oembed,
  metadataImage,
  metadataVideo,
  metadataAudio,
  metadataProvenance,
  previewThumbnail,
  previewBlurhash,
  previewPalette,
  previewStoryboard,
  previewWaveform,
  page,
  pageMedia,
] as const;

export type RegisteredStageName = (typeof stageRegistry)[number]["name"];

/** The registry's names as the non-empty tuple z.enum takes. */
export const stageNames: readonly [RegisteredStageName, ...RegisteredStageName[]] = [stageRegistry[0].name, ...stageRegistry.slice(1).map((s) => s.name)];

const byName = new Map<string, StageDefinition<RegisteredStageName>>(stageRegistry.map((s) => [s.name, s]));

export function stageDefinition(name: RegisteredStageName): StageDefinition<RegisteredStageName> {
  return byName.get(name)!;
}

const appliesTo = (s: StageDefinition, category: MediaCategory) => (s.categories as readonly MediaCategory[]).includes(category);
/** Registered for this category only when asked for (opt-in) or found (whenFound), never by default. */
const onCondition = (s: StageDefinition, category: MediaCategory) => s.optIn !== undefined || (s.whenFound ?? []).includes(category);

/** Whether a stage is registered for this category only when something is found (see StageDefinition.whenFound). */
export function registeredWhenFound(name: RegisteredStageName, category: MediaCategory): boolean {
  return (stageDefinition(name).whenFound ?? []).includes(category);
}

/** Stages every record of a category registers, in registry order (opt-in stages are not among them). */
export function stagesFor(category: MediaCategory): RegisteredStageName[] {
  return stageRegistry.filter((s) => appliesTo(s, category) && !onCondition(s, category)).map((s) => s.name);
}

/**
 * The stages one record registers: its category's, plus the opt-in stages a caller asked for and the
 * when-found stages the inspection found input for (present in its stage map) that apply to the category. Processing, pending work and diagnostics read this list.
 */
export function registeredStages(record: { category: MediaCategory; stages: Partial<Record<string, unknown>> }): RegisteredStageName[] {
  return stageRegistry
    .filter((s) => appliesTo(s, record.category) && (!onCondition(s, record.category) || record.stages[s.name] !== undefined))
    .map((s) => s.name);
}

/** The opt-in stages an `expand` list asks for that apply to the category. */
export function optInStages(category: MediaCategory, expand: readonly string[]): RegisteredStageName[] {
  return stageRegistry.filter((s) => s.optIn !== undefined && expand.includes(s.optIn) && appliesTo(s, category)).map((s) => s.name);
}

/** Every `expand` value that registers a stage. */
export const optInNames: readonly string[] = stageRegistry.flatMap((s): string[] => (s.optIn ? [s.optIn] : []));

export function stagesInGroup(group: StageGroup, among: readonly RegisteredStageName[] = stageNames): RegisteredStageName[] {
  return among.filter((name) => stageDefinition(name).group === group);
}

export function runsOn(name: RegisteredStageName, engine: StageEngine): boolean {
  return stageDefinition(name).engines.includes(engine);
}

/** The media-runner stages that do the work of these Worker stages (deduplicated, registry order). */
export function runnerStagesOf(stages: readonly RegisteredStageName[]): RunnerStage[] {
  const out: RunnerStage[] = [];
  for (const name of stages) {
    const runnerStage = stageDefinition(name).runnerStage;
    if (runnerStage && !out.includes(runnerStage)) out.push(runnerStage);
  }
  return out;
}
