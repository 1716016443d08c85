import type { Processing } from "../schemas/inspect.ts";
import type { ResourceRecord } from "../schemas/record.ts";
import type { StageError, StageName } from "../schemas/stages.ts";
import { registeredStages } from "../stages/index.ts";

/**
 * Processing state derived from the record's stage registry alone: never from the profile, fields
 * or what a projection shows. A failed stage counts as completed (done, with no result) and is also listed
 * in `failedStages`, so a resource can never stay pending because of a broken stage.
 */
export function deriveProcessing(record: ResourceRecord): Processing {
  const registered = registeredStages(record);
  const completedStages: StageName[] = [];
  const pendingStages: StageName[] = [];
  const failedStages: StageName[] = [];
  for (const stage of registered) {
    const state = record.stages[stage]?.state ?? "pending";
    if (state === "pending") pendingStages.push(stage);
    else completedStages.push(stage);
    if (state === "failed") failedStages.push(stage);
  }
  const completion = registered.length === 0 ? 1 : Math.round((completedStages.length / registered.length) * 100) / 100;
  return {
    status: pendingStages.length === 0 ? "complete" : "partial",
    completion,
    enrichmentsPending: pendingStages.length > 0,
    completedStages,
    pendingStages,
    ...(failedStages.length > 0 ? { failedStages } : {}),
  };
}

export type StageView = "pending" | "done" | "failed" | "unregistered";

export function stageView(record: ResourceRecord, stage: StageName): StageView {
  if (!registeredStages(record).includes(stage)) return "unregistered";
  return record.stages[stage]?.state ?? "pending";
}

/** Each failed stage with its short reason (`processing.failedStages` names them; this says why). */
export function stageErrors(record: ResourceRecord): StageError[] {
  return registeredStages(record)
    .filter((stage) => record.stages[stage]?.state === "failed")
    .map((stage) => ({ stage, reason: record.stages[stage]?.error ?? "no reason recorded" }));
}
