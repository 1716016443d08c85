import type { Config } from "../config.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { StageName } from "../../shared/schemas/stages.ts";
import type { RunnerStage } from "../../shared/schemas/runner.ts";
import { isEdgeImage } from "../enrich/edge-image-stages.ts";
import { pendingStages } from "./create-record.ts";

/** Which engine finishes each pending stage: the edge (photon, in the object) or the media runner (via the queue). */
export function runnerStagesOf(record: ResourceRecord, config: Config, now: number): StageName[] {
  if (record.category === "embedded" || record.category === "webpage") return [];
  if (record.category === "image" && isEdgeImage(record, config) && !record.results.edgeRefused) return [];
  return pendingStages(record).filter((stage) => {
    if (stage === "semantic" || stage === "mediaFormat" || stage === "oembed") return false;
    const queuedAt = record.stages[stage]?.queuedAt;
    // Queued already and not stale: the message is in flight (or retrying); don't send a duplicate.
    return queuedAt === undefined || now - queuedAt > config.STAGE_REQUEUE_AFTER_MS;
  });
}

const runnerStageOf: Record<string, RunnerStage> = {
  "metadata:image": "metadata",
  "metadata:video": "metadata",
  "metadata:audio": "metadata",
  "preview:thumbnail": "thumbnail",
  "preview:blurhash": "placeholder",
  "preview:palette": "palette",
};

export function toRunnerStages(stages: StageName[]): RunnerStage[] {
  return [...new Set(stages.map((s) => runnerStageOf[s]).filter((s): s is RunnerStage => s !== undefined))];
}
