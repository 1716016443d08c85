import { z } from "zod";
import { Identity, Metadata, Playback, Preview, Provider, ProviderData, Semantic } from "../shapes/media-data.ts";
import { Page } from "../shapes/streaming-page.ts";
import { Accessibility } from "../shapes/tracks.ts";
import { Provenance } from "../shapes/provenance.ts";
import { StageError } from "./stages.ts";

/** The `data` of an inspect answer: every namespace, and the diagnostics that name stages. */
export const StageDiagnostics = z.object({
  state: z.enum(["pending", "done", "failed"]),
  engine: z.enum(["edge", "runner", "provider"]).optional().meta({ description: "Where the stage ran" }),
  durationMs: z.number().int().optional(),
  error: z.string().optional().meta({ description: "Why the stage failed (or the last transient error while it retries)" }),
  bytesPulled: z.number().int().nonnegative().optional()
    .meta({ description: "Origin body bytes this stage itself pulled (stages that read on their own, e.g. preview:storyboard's keyframes)" }),
  requests: z.number().int().nonnegative().optional().meta({ description: "Origin requests this stage itself made" }),
  method: z.string().optional()
    .meta({ description: "How the stage read the file (preview:storyboard: frames-by-range, keyframes-by-range, or seek-per-tile and why)" }),
});

export const Diagnostics = z.object({
  timings: z.record(z.string(), z.number().int()).meta({ description: "Milliseconds: total, semantic, mediaFormat, preview, ..." }),
  bytesPulled: z.number().int().nonnegative().optional()
    .meta({ description: "Body bytes the whole inspection pulled from the origin, at the edge and in the media runner together" }),
  requests: z.number().int().nonnegative().optional()
    .meta({ description: "HTTP requests the whole inspection made to the origin (edge and runner); each redirect hop is one more, counted in redirects" }),
  redirects: z.number().int().nonnegative().optional()
    .meta({ description: "Redirect hops followed, edge and runner together" }),
  engineMs: z.number().int().nonnegative().optional()
    .meta({ description: "Engine milliseconds the media runner spent on the inspection, every job (failed ones and retries) together: wall time of its engine processes, summed, out of the engine-time budget (inspectionEngineSecondsBudget)" }),
  stageErrors: z.array(StageError).optional()
    .meta({ description: "Why each stage in processing.failedStages failed. Present only when a stage failed." }),
  stages: z.record(z.string(), StageDiagnostics).optional().meta({ description: "Per registered stage: state, engine, time, failure reason" }),
  bytesFetched: z.object({
    worker: z.number().int().nonnegative().meta({ description: "Bytes the Worker pulled from the origin while probing" }),
    runner: z.number().int().nonnegative().optional().meta({ description: "Bytes the media runner pulled from the origin" }),
  }).optional(),
}).meta({ id: "Diagnostics" });

export const Network = z.object({
  headers: z.record(z.string(), z.string()).meta({ description: "Final hop response headers (set-cookie removed)" }),
}).meta({ id: "Network" });

export const InspectData = z.object({
  identity: Identity.optional(),
  semantic: Semantic.optional(),
  provider: Provider.optional(),
  playback: Playback.optional(),
  metadata: Metadata.optional(),
  preview: Preview.optional(),
  providerData: ProviderData.optional(),
  diagnostics: Diagnostics.optional(),
  network: Network.optional(),
  page: Page.optional(),
  accessibility: Accessibility.optional().meta({ description: "Video and audio: captions, audio description and languages, once the tracks are known" }),
  provenance: Provenance.nullable().optional().meta({ description: "Direct media: C2PA Content Credentials and the AI declaration; null while pending" }),
}).meta({ id: "InspectData" });
export type InspectData = z.infer<typeof InspectData>;

/** Namespaces a caller may name in `fields`. */
export const namespaceNames = ["identity", "semantic", "provider", "playback", "metadata", "preview", "diagnostics", "page", "accessibility", "provenance"] as const;
export type NamespaceName = (typeof namespaceNames)[number];
/** Paths one level into a namespace a caller may name in `fields` (only that part of the namespace is kept). */
export const subFieldNames = ["metadata.capture", "metadata.rights", "metadata.tracks", "metadata.chapters", "metadata.protection"] as const;
export type FieldName = NamespaceName | (typeof subFieldNames)[number];
