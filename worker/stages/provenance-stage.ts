import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { stageDefinition } from "../../shared/stages/index.ts";
import { finishStage } from "../record/stage-state.ts";
import { readProvenanceFacts, type ProvenanceInput } from "../probe/provenance-facts.ts";

/**
 * The metadata:provenance stage, inline: capture, rights and provenance from the bytes the probe already holds.
 * Done with what the readers found (a reader that refused the bytes is named in the stage's `method`); failed
 * only when every reader refused them, with their reasons.
 */
export async function finishProvenanceStage(record: ResourceRecord, input: Omit<ProvenanceInput, "category">, startedMs: number): Promise<void> {
  if (record.stages["metadata:provenance"]?.state !== "pending") return;
  const { facts, problems } = await readProvenanceFacts({ ...input, category: record.category });
  const nothing = !facts.capture && !facts.rights && !facts.provenance.c2pa.present;
  const durationMs = performance.now() - startedMs;
  if (nothing && problems.length > 0) {
    finishStage(record, "metadata:provenance", { state: "failed", durationMs, engine: "edge", error: problems.join("; ") });
    return;
  }
  Object.assign(record.results, stageDefinition("metadata:provenance").write!({ provenance: facts }));
  finishStage(record, "metadata:provenance", { state: "done", durationMs, engine: "edge" });
  if (problems.length > 0) record.stages["metadata:provenance"]!.method = `left out: ${problems.join("; ")}`.slice(0, 200);
}
