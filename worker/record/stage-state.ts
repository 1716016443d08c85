/**
 * The stage state machine, the one place a record's stages change. A stage is registered `pending` when the
 * record is created (or when a category revision makes it apply), may be marked queued, started or retried
 * while pending, and finishes once: `done` (its result is written) or `failed` (a short reason, no result).
 * A finished stage never changes again, so replayed messages change nothing. Stages that stop applying after
 * a category revision are dropped, never failed. Everything here is synchronous and generic over the
 * registry (shared/stages).
 */
import type { ResourceRecord, StageRecord } from "../../shared/schemas/record.ts";
import type { MediaCategory, StageName } from "../../shared/schemas/stages.ts";
import { optInStages, registeredStages, registeredWhenFound, stageDefinition, stagesFor, type EngineOutput } from "../../shared/stages/index.ts";
import type { RunnerStage } from "../../shared/shapes/runner.ts";

type Engine = NonNullable<StageRecord["engine"]>;

/** A failure reason is shown to callers (debug, diagnostics): one short line. */
export const maxReasonLength = 200;

export function shortReason(reason: string): string {
  const line = reason.replace(/\s+/g, " ").trim();
  return line.length > maxReasonLength ? `${line.slice(0, maxReasonLength - 1)}…` : line;
}

/** Every stage of the category, pending. */
export function initialStages(category: MediaCategory): Partial<Record<StageName, StageRecord>> {
  const stages: Partial<Record<StageName, StageRecord>> = {};
  for (const stage of stagesFor(category)) stages[stage] = { state: "pending", attempts: 0 };
  return stages;
}

export interface StageFinish {
  state: "done" | "failed";
  durationMs?: number;
  error?: string;
  engine?: Engine;
}

/** Marks a stage finished. A stage not pending (finished, or not registered) is left alone. */
export function finishStage(record: ResourceRecord, stage: StageName, outcome: StageFinish): boolean {
  const current = record.stages[stage];
  if (!current || current.state !== "pending") return false;
  // A done stage drops the reason of an earlier transient failure; a failed one keeps the newest reason.
  const { error: earlier, ...rest } = current;
  const error = outcome.error ? shortReason(outcome.error) : outcome.state === "failed" ? earlier : undefined;
  record.stages[stage] = {
    ...rest,
    state: outcome.state,
    finishedAt: Date.now(),
    ...(outcome.durationMs !== undefined ? { durationMs: Math.round(outcome.durationMs) } : {}),
    ...(error ? { error } : {}),
    ...(outcome.engine ? { engine: outcome.engine } : {}),
  };
  record.updatedAt = Date.now();
  return true;
}

/**
 * A caller asked for opt-in stages (`expand`): those that apply and are not registered yet are registered
 * pending, and stay part of the record from then on. Returns the stages newly registered.
 */
export function registerOptIn(record: ResourceRecord, expand: readonly string[]): StageName[] {
  const added = optInStages(record.category, expand).filter((stage) => record.stages[stage] === undefined);
  for (const stage of added) record.stages[stage] = { state: "pending", attempts: 0 };
  if (added.length > 0) record.updatedAt = Date.now();
  return added;
}

/**
 * The inspection found what a when-found stage works on (an audio file's cover art): it is registered pending
 * when it applies to the record's category. Returns whether it was newly registered.
 */
export function registerFound(record: ResourceRecord, stage: StageName): boolean {
  if (record.stages[stage] !== undefined || !registeredWhenFound(stage, record.category)) return false;
  record.stages[stage] = { state: "pending", attempts: 0 };
  record.updatedAt = Date.now();
  return true;
}

/** Registered stages still pending, in registry order. */
export function pendingStages(record: ResourceRecord): StageName[] {
  return registeredStages(record).filter((s) => record.stages[s]?.state === "pending");
}

export function isComplete(record: ResourceRecord): boolean {
  return pendingStages(record).length === 0;
}

/** Of `stages`, those still pending. */
export function stillPending(record: ResourceRecord, stages: readonly StageName[]): StageName[] {
  const registered = registeredStages(record);
  return stages.filter((s) => registered.includes(s) && record.stages[s]?.state === "pending");
}

/** Put on the queue at `now` by `engine` (a re-send happens only once this is stale). */
export function markQueued(record: ResourceRecord, stages: readonly StageName[], now: number, engine: Engine): void {
  for (const stage of stillPending(record, stages)) record.stages[stage] = { ...record.stages[stage]!, queuedAt: now, engine };
}

/** The queue refused the message sent at `queuedAt`: those stages are free to be sent again. */
export function unmarkQueued(record: ResourceRecord, stages: readonly StageName[], queuedAt: number): void {
  for (const stage of stillPending(record, stages)) {
    const { queuedAt: at, ...rest } = record.stages[stage]!;
    if (at === queuedAt) record.stages[stage] = rest;
  }
}

/** An engine began working on these stages (job status `active`). */
export function markStarted(record: ResourceRecord, stages: readonly StageName[], now: number): void {
  for (const stage of stillPending(record, stages)) record.stages[stage] = { ...record.stages[stage]!, startedAt: now };
}

/** A transient failure: the stages stay pending and wait for a retry (job status `delayed`). */
export function noteRetry(record: ResourceRecord, stages: readonly StageName[], error: string): void {
  for (const stage of stillPending(record, stages)) {
    const { startedAt: _running, ...rest } = record.stages[stage]!;
    record.stages[stage] = { ...rest, attempts: rest.attempts + 1, error: shortReason(error) };
  }
}

/** Ends every one of `stages` still pending as failed with the same reason. */
export function failStages(record: ResourceRecord, stages: readonly StageName[], reason: string, engine: Engine): boolean {
  let changed = false;
  for (const stage of stages) changed = finishStage(record, stage, { state: "failed", error: reason, engine }) || changed;
  return changed;
}

export interface EngineResult {
  /** The pending stages this engine was asked to finish. */
  stages: readonly StageName[];
  output: EngineOutput;
  engine: Engine;
  durationMs?: number;
  /** Per-stage failure reasons the engine reported (stages it tried and could not finish). */
  failures?: Partial<Record<StageName, string>>;
  /** Reason for a stage the output holds nothing for and the engine gave no reason. */
  missingReason: string;
}

/**
 * Writes an engine's output: each stage independently, through its declaration's `write`. A stage with a
 * result is done; one without is failed with the engine's reason for it. Metadata never fails because a
 * preview did, nor the other way round.
 */
export function applyEngineResult(record: ResourceRecord, result: EngineResult): boolean {
  let changed = false;
  for (const stage of stillPending(record, result.stages)) {
    const written = stageDefinition(stage).write?.(result.output);
    const failure = result.failures?.[stage];
    if (written && failure === undefined) {
      Object.assign(record.results, written);
      changed = finishStage(record, stage, { state: "done", engine: result.engine, ...(result.durationMs !== undefined ? { durationMs: result.durationMs } : {}) }) || changed;
    } else {
      changed = finishStage(record, stage, { state: "failed", engine: result.engine, error: failure ?? result.missingReason }) || changed;
    }
  }
  return changed;
}

/**
 * Facts read before the first answer (headers in the probed bytes): each pending stage that may run inline
 * and finds its result in `output` is done; the others stay pending for the edge or the runner.
 */
export function applyInlineOutput(record: ResourceRecord, output: EngineOutput, durationMs: number): StageName[] {
  const finished: StageName[] = [];
  for (const stage of pendingStages(record)) {
    const definition = stageDefinition(stage);
    const written = definition.engines.includes("inline") ? definition.write?.(output) : undefined;
    if (!written) continue;
    Object.assign(record.results, written);
    if (finishStage(record, stage, { state: "done", durationMs, engine: "edge" })) finished.push(stage);
  }
  return finished;
}

/** Pending stages whose work is done by one of these runner stages. */
export function pendingForRunnerStages(record: ResourceRecord, runnerStages: readonly RunnerStage[]): StageName[] {
  return pendingStages(record).filter((s) => {
    const runnerStage = stageDefinition(s).runnerStage;
    return runnerStage !== undefined && runnerStages.includes(runnerStage);
  });
}

export interface CategoryEvidence {
  /** The reader of the track list that decided (e.g. "ffprobe"); shown as `tracks:<source>` in `semantic.enrichmentSources`. */
  source: string;
  /** The MIME type the evidence implies; when absent, the family of an audio/video MIME follows the category. */
  mime?: string;
}

/**
 * The category was wrong (the streams say otherwise): the record takes the new category and MIME, stages that
 * no longer apply are dropped (not failed, they never applied), stages that now apply are registered pending,
 * and the evidence is recorded. Stages kept (semantic, mediaFormat) keep their state. Returns whether
 * anything changed.
 */
export function reviseCategory(record: ResourceRecord, category: MediaCategory, evidence: CategoryEvidence): boolean {
  if (record.category === category) return false;
  // Opt-in stages a caller asked for stay registered when they apply to the new category too.
  const applies = registeredStages({ category, stages: record.stages });
  for (const stage of Object.keys(record.stages) as StageName[]) {
    if (!applies.includes(stage)) delete record.stages[stage];
  }
  for (const stage of applies) record.stages[stage] ??= { state: "pending", attempts: 0 };
  record.category = category;
  record.probe.mime = evidence.mime ?? revisedMime(record.probe.mime, category);
  // The evidence that decided the old category was wrong: it gives way; other evidence (durations) stays.
  const kept = (record.probe.evidence ?? []).filter((e) => !e.startsWith("bytes:") && !e.startsWith("tracks:"));
  record.probe.evidence = [`tracks:${evidence.source}`, ...kept];
  record.updatedAt = Date.now();
  return true;
}

/** video/webm heard as audio is audio/webm; other families (application/...) are left as sniffed. */
function revisedMime(mime: string, category: MediaCategory): string {
  const slash = mime.indexOf("/");
  const family = mime.slice(0, slash);
  const avLike = family === "audio" || family === "video";
  return slash > 0 && avLike && (category === "audio" || category === "video") ? `${category}${mime.slice(slash)}` : mime;
}
