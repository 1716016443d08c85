import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { stageDefinition } from "../../shared/stages/index.ts";
import { finishStage } from "../record/stage-state.ts";
import { readProvenanceFacts, type ProvenanceInput } from "../probe/provenance-facts.ts";

/**
 * The metadata:provenance stage, inline: capture, rights and provenance from the bytes the probe already holds.
 * Always done with what the readers found: a reader that refused the bytes leaves its facts out and is named,
 * with why, in the stage's `method` (diagnostics), so a file with broken metadata still gets its provenance answer.
 * With `tail` (an MP4/MOV whose user data lies past the bytes read), what was found is written but the stage stays
 * pending: the provenance tail stage (provenance-tail-stage.ts) completes it after the first answer.
 */
export async function finishProvenanceStage(
  record: ResourceRecord,
  input: Omit<ProvenanceInput, "category">,
  startedMs: number,
  tail?: { offset: number; length: number },
): Promise<void> {
  if (record.stages["metadata:provenance"]?.state !== "pending") return;
  const { facts, problems } = await readProvenanceFacts({ ...input, category: record.category });
  const durationMs = performance.now() - startedMs;
  Object.assign(record.results, stageDefinition("metadata:provenance").write!({ provenance: facts }));
  if (tail) {
    record.probe.metadataTail = tail;
    if (problems.length > 0) record.stages["metadata:provenance"]!.method = leftOut(problems);
    return;
  }
  finishStage(record, "metadata:provenance", { state: "done", durationMs, engine: "edge" });
  if (problems.length > 0) record.stages["metadata:provenance"]!.method = leftOut(problems);
}

export function leftOut(problems: readonly string[]): string {
  return `left out: ${problems.join("; ")}`.slice(0, 200);
}
