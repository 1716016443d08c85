import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { stageDefinition } from "../../shared/stages/index.ts";
import { finishStage } from "../record/stage-state.ts";
import { readProvenanceFacts, type ProvenanceInput } from "../probe/provenance-facts.ts";

/**
 * The metadata:provenance stage, inline: capture, rights and provenance from the bytes the probe already holds.
 * Always done with what the readers found: a reader that refused the bytes leaves its facts out and is named,
 * with why, in the stage's `method` (diagnostics), so a file with broken metadata still gets its provenance answer.
 */
export async function finishProvenanceStage(record: ResourceRecord, input: Omit<ProvenanceInput, "category">, startedMs: number): Promise<void> {
  if (record.stages["metadata:provenance"]?.state !== "pending") return;
  const { facts, problems } = await readProvenanceFacts({ ...input, category: record.category });
  const durationMs = performance.now() - startedMs;
  Object.assign(record.results, stageDefinition("metadata:provenance").write!({ provenance: facts }));
  finishStage(record, "metadata:provenance", { state: "done", durationMs, engine: "edge" });
  if (problems.length > 0) record.stages["metadata:provenance"]!.method = `left out: ${problems.join("; ")}`.slice(0, 200);
}
