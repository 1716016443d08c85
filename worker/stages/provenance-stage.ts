import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { stageDefinition } from "../../shared/stages/index.ts";
import { finishStage } from "../record/stage-state.ts";
import { readProvenanceFacts, type ProvenanceInput } from "../probe/provenance-facts.ts";
import { httpUrl, linkedManifest } from "../probe/c2pa-sidecar.ts";

/**
 * The metadata:provenance stage, inline: capture, rights and provenance from the bytes the probe already holds.
 * Always done with what the readers found: a reader that refused the bytes leaves its facts out and is named,
 * with why, in the stage's `method` (diagnostics), so a file with broken metadata still gets its provenance answer.
 * With `tail` (an MP4/MOV whose user data lies past the bytes read) or a declared sidecar manifest store, what was
 * found is written but the stage stays pending: provenance-tail-stage.ts completes it after the first answer.
 */
export async function finishProvenanceStage(
  record: ResourceRecord,
  input: Omit<ProvenanceInput, "category">,
  startedMs: number,
  tail?: { offset: number; length: number },
  /** Why facts the file keeps past the bytes read are left out (their read would be over its cap). */
  refused?: string,
): Promise<void> {
  if (record.stages["metadata:provenance"]?.state !== "pending") return;
  const { facts, problems: found, declaredManifest } = await readProvenanceFacts({ ...input, category: record.category });
  const problems = refused ? [refused, ...found] : found;
  const durationMs = performance.now() - startedMs;
  Object.assign(record.results, stageDefinition("metadata:provenance").write!({ provenance: facts }));
  // No embedded store, but one declared: the response's Link header first, then the XMP.
  const sidecar = facts.provenance.c2pa.present ? undefined
    : linkedManifest(record.probe.headers.link, record.probe.finalUrl) ?? httpUrl(declaredManifest, record.probe.finalUrl);
  if (sidecar) record.probe.c2paSidecar = sidecar;
  if (tail) record.probe.metadataTail = tail;
  if (tail || sidecar) {
    if (problems.length > 0) record.stages["metadata:provenance"]!.method = leftOut(problems);
    return;
  }
  finishStage(record, "metadata:provenance", { state: "done", durationMs, engine: "edge" });
  if (problems.length > 0) record.stages["metadata:provenance"]!.method = leftOut(problems);
}

export function leftOut(problems: readonly string[]): string {
  return `left out: ${problems.join("; ")}`.slice(0, 200);
}
