import type { Config } from "../config/config.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { StageName } from "../../shared/schemas/stages.ts";
import { runsOn } from "../../shared/stages/index.ts";
import { isEdgeImage } from "../stages/edge-image-stages.ts";
import { pendingStages } from "../record/stage-state.ts";
import { provenanceTailPending } from "../stages/provenance-tail-stage.ts";

/**
 * Which engine finishes each pending stage, from the registry: stages that run on the edge go to the edge
 * image pipeline when the Worker can decode this image; stages that run on the runner go to the queue.
 * Inline stages are finished by the first inspection and are never planned here.
 */
export function stagesForEdge(record: ResourceRecord, config: Config): StageName[] {
  if (!isEdgeImage(record, config)) return [];
  // metadata:provenance's later reads run before the image stages (provenance-tail-stage.ts), never among them.
  return pendingStages(record).filter((stage) => runsOn(stage, "edge") && stage !== "metadata:provenance");
}

export function stagesForRunner(record: ResourceRecord, config: Config, now: number): StageName[] {
  const edge = stagesForEdge(record, config);
  return pendingStages(record).filter((stage) => {
    if (!runsOn(stage, "runner") || edge.includes(stage)) return false;
    // An MP4's user data past the head: the edge's one tail read finishes it, not a runner job.
    if (stage === "metadata:provenance" && provenanceTailPending(record)) return false;
    const queuedAt = record.stages[stage]?.queuedAt;
    // Queued already and not stale: the message is in flight (or retrying); don't send a duplicate.
    return queuedAt === undefined || now - queuedAt > config.STAGE_REQUEUE_AFTER_MS;
  });
}
