import type { RunnerResponse, RunnerStage, RunnerUsage } from "../../shared/shapes/runner.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { StageName } from "../../shared/schemas/stages.ts";
import { registeredWhenFound, runnerStagesOf, stageDefinition, type EngineOutput } from "../../shared/stages/index.ts";
import { applyEngineResult, failStages, pendingForRunnerStages, reviseCategory } from "./stage-state.ts";
import { applyMeasuredImageSize } from "./measured-size.ts";

/** What the queue consumer hands the object: the runner's answer (thumbnail already in R2), or why there is none. */
export interface RunnerOutcome {
  stages: StageName[];
  /** storedStoryboard: the runner's storyboard once its sprite and track are in R2 (the raw one is not kept). */
  result?: Omit<RunnerResponse, "thumbnail"> & Pick<EngineOutput, "thumbnail"> & { storedStoryboard?: EngineOutput["storyboard"] };
  error?: string;
  /** A failed job's spending (RunnerError.usage), charged to the inspection. */
  usage?: RunnerUsage;
}

/**
 * Writes a runner result (or a permanent failure) into the record. When the runner's streams show another
 * category, the record is revised first, so stages that no longer apply are dropped and the new plan's
 * stages take the result. Each stage is then written on its own: a failed frame never fails the metadata.
 * Only pending stages change, so a message processed twice changes nothing.
 */
export function applyRunnerOutcome(record: ResourceRecord, outcome: RunnerOutcome): boolean {
  const r = outcome.result;
  if (!r) return failStages(record, outcome.stages, outcome.error ?? "the media runner failed", "runner");
  const requested = runnerStagesOf(outcome.stages);
  let changed = false;
  if (r.detected && r.detected.category !== record.category) {
    changed = reviseCategory(record, r.detected.category, { source: r.detected.source });
  }
  const targets = pendingForRunnerStages(record, requested).filter((stage) => {
    // Registered because something might be there (cover art), and the runner found nothing: not a failure.
    const nothingFound = r.stages?.[stageDefinition(stage).runnerStage as RunnerStage]?.status === "skipped" && registeredWhenFound(stage, record.category);
    if (nothingFound) {
      delete record.stages[stage];
      changed = true;
    }
    return !nothingFound;
  });
  const failures: Partial<Record<StageName, string>> = {};
  for (const stage of targets) {
    const reported = r.stages?.[stageDefinition(stage).runnerStage as RunnerStage];
    if (reported && reported.status !== "done") failures[stage] = reported.reason ?? `the media runner ${reported.status} it`;
  }
  changed = applyEngineResult(record, {
    stages: targets,
    output: engineOutputOf(r),
    engine: "runner",
    ...(r.timings.total !== undefined ? { durationMs: r.timings.total } : {}),
    failures,
    missingReason: "the media runner produced no result",
  }) || changed;
  // The header's size of a HEIF gives way to the size the runner measured on the coded picture.
  changed = applyMeasuredImageSize(record, r.metadata?.image) || changed;
  // A stage that read on its own (the storyboard's keyframes) says what it pulled: kept on its stage record.
  for (const stage of targets) {
    const { bytesPulled, requests, method } = r.stages?.[stageDefinition(stage).runnerStage as RunnerStage] ?? {};
    const entry = record.stages[stage];
    if (!entry || (bytesPulled === undefined && requests === undefined && method === undefined)) continue;
    Object.assign(entry, { ...(bytesPulled !== undefined ? { bytesPulled } : {}), ...(requests !== undefined ? { requests } : {}), ...(method !== undefined ? { method } : {}) });
    changed = true;
  }
  if (changed && r.bytesFetched !== undefined) record.results.runnerBytesFetched = r.bytesFetched;
  if (changed) {
    for (const [k, v] of Object.entries(r.timings)) record.timings[`runner.${k}`] = v;
    if (r.timings.thumbnail !== undefined || r.timings.frame !== undefined) {
      record.timings.preview = (r.timings.frame ?? 0) + (r.timings.thumbnail ?? 0) + (r.timings.placeholder ?? 0) + (r.timings.palette ?? 0);
    }
  }
  return changed;
}

/**
 * The runner's answer as the shared engine output: everything it produced, whatever the stage, so a new stage's
 * field reaches its `write` (shared/stages) with no list here. Only the protocol's own fields are set aside, and
 * the raw storyboard gives way to the stored one.
 */
function engineOutputOf(result: NonNullable<RunnerOutcome["result"]>): EngineOutput {
  const { storyboard: _raw, storedStoryboard, timings: _t, bytesFetched: _b, requests: _q, redirects: _r, stages: _s, detected: _d, ...produced } = result;
  const output: EngineOutput = { ...produced, ...(storedStoryboard ? { storyboard: storedStoryboard } : {}) };
  for (const key of Object.keys(output) as (keyof EngineOutput)[]) if (output[key] === undefined) delete output[key];
  return output;
}
