import type { ProbeResult, ProviderRecord, ResourceRecord, StageRecord } from "../../shared/schemas/record.ts";
import { stagesByCategory, type MediaCategory, type StageName } from "../../shared/schemas/stages.ts";

export interface NewRecordInput {
  key: string;
  url: string;
  normalizedUrl: string;
  category: MediaCategory;
  probe: ProbeResult;
  provider?: ProviderRecord;
  ttlSeconds: number;
  now: number;
}

/** A record with every stage of the category registered as pending. */
export function createRecord(input: NewRecordInput): ResourceRecord {
  const stages: Partial<Record<StageName, StageRecord>> = {};
  for (const stage of stagesByCategory[input.category]) stages[stage] = { state: "pending", attempts: 0 };
  return {
    key: input.key,
    url: input.url,
    normalizedUrl: input.normalizedUrl,
    category: input.category,
    probe: input.probe,
    ...(input.provider ? { provider: input.provider } : {}),
    stages,
    results: {},
    timings: {},
    createdAt: input.now,
    updatedAt: input.now,
    expiresAt: input.now + input.ttlSeconds * 1000,
  };
}

/** Marks a stage finished. A stage already finished is left alone, so replays change nothing. */
export function finishStage(
  record: ResourceRecord,
  stage: StageName,
  outcome: { state: "done" | "failed"; durationMs?: number; error?: string; engine?: StageRecord["engine"] },
): boolean {
  const current = record.stages[stage];
  if (!current || current.state !== "pending") return false;
  record.stages[stage] = {
    ...current,
    state: outcome.state,
    finishedAt: Date.now(),
    ...(outcome.durationMs !== undefined ? { durationMs: Math.round(outcome.durationMs) } : {}),
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.engine ? { engine: outcome.engine } : {}),
  };
  record.updatedAt = Date.now();
  return true;
}

export function pendingStages(record: ResourceRecord): StageName[] {
  return stagesByCategory[record.category].filter((s) => record.stages[s]?.state === "pending");
}
