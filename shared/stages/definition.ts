/**
 * What a stage is, declared once, so adding a stage means adding one declaration. A declaration is pure data plus
 * one pure function: which categories register it, which engines may run it, the media-runner stage it maps
 * to, how an engine's output becomes record results, and which response fields it fills.
 */
import type { RunnerMetadata, RunnerStage } from "../shapes/runner.ts";
import type { Loudness, Placeholder, Storyboard, Thumbnail, Waveform } from "../shapes/media-data.ts";
import type { StageResults } from "../shapes/stage-results.ts";
import type { ProvenanceFacts } from "../shapes/provenance.ts";
import type { MediaCategory } from "../shapes/media-category.ts";
import type { z } from "zod";

/**
 * Where a stage's work runs. `inline`: during the first inspection, before the first answer (probe,
 * headers, provider oEmbed). `edge`: in the Durable Object after the first answer (photon). `runner`: the
 * media runner, through the queue.
 */
export type StageEngine = "inline" | "edge" | "runner";

/**
 * `core` stages finish with the probe; `metadata` stages describe the media; `preview` stages generate
 * pictures (hidden by `profile=fast`); `provider` stages ask a provider.
 */
export type StageGroup = "core" | "metadata" | "preview" | "provider";

/**
 * What any engine (edge image pipeline, media runner) produced, in one shape, so a stage's `write` reads
 * the same bag whichever engine ran it. The thumbnail is already stored (R2 path), not bytes.
 */
export interface EngineOutput {
  metadata?: RunnerMetadata;
  thumbnail?: z.infer<typeof Thumbnail>;
  placeholder?: z.infer<typeof Placeholder>;
  dominantColor?: string;
  /** Palette colours, largest share first (dominantColor is the first). */
  palette?: StageResults["palette"];
  /** The storyboard, its sprite and WebVTT track already stored (R2 paths). */
  storyboard?: z.infer<typeof Storyboard>;
  waveform?: z.infer<typeof Waveform>;
  loudness?: z.infer<typeof Loudness>;
  /** Capture, rights and provenance facts read from the file's metadata. */
  provenance?: ProvenanceFacts;
}

export interface StageDefinition<N extends string = string> {
  name: N;
  /** Categories whose records register this stage (what "complete" means for a resource). */
  categories: readonly MediaCategory[];
  /** Engines that may finish it, in order of preference. */
  engines: readonly StageEngine[];
  group: StageGroup;
  /** The media-runner stage that does this work (several Worker stages may share one). */
  runnerStage?: RunnerStage;
  /** Record results from an engine's output; undefined when the output holds nothing for this stage. */
  write?: (output: EngineOutput) => Partial<StageResults> | undefined;
  /** Response paths (under `data`) this stage fills: `null` there means the stage is still pending. */
  fills: readonly string[];
  /**
   * What the stage shows once done, keyed by its `fills` paths less their namespace (`thumbnail` for
   * `preview.thumbnail`, `audio.loudness` for `metadata.audio.loudness`); undefined shows nothing. The projection
   * builds the stage-filled fields of `metadata` and `preview` from these alone (shared/projection/stage-fields.ts):
   * null while pending, the value once done, omitted when failed or not registered.
   */
  show?: (results: StageResults) => Readonly<Record<string, unknown>>;
  /** An opt-in stage whose field the contract reserves: null until a caller asks for it, for the categories it applies to. */
  reservedUntilAsked?: boolean;
  /**
   * Categories whose records register this stage only when the first inspection finds what it works on (an audio
   * file's cover art): such a record has it only while its stage map holds it, and an engine that reports
   * nothing there (`skipped`) unregisters it rather than failing it.
   */
  whenFound?: readonly MediaCategory[];
  /**
   * Registered only once a caller asks for it with this `expand` value; from then on it is part of the
   * record like any other stage (processing counts it for every profile).
   */
  optIn?: string;
}

/** Keeps the literal name, so the registry yields the StageName union. */
export function defineStage<const N extends string>(definition: StageDefinition<N>): StageDefinition<N> {
  return definition;
}
