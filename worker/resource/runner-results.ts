import type { RunnerResponse } from "../../shared/schemas/runner.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { StageName } from "../../shared/schemas/stages.ts";
import { finishStage } from "./create-record.ts";

export interface RunnerOutcome {
  stages: StageName[];
  result?: Omit<RunnerResponse, "thumbnail"> & { thumbnail?: { url: string; dimensions: string } };
  error?: string;
}

/**
 * Writes a runner result (or a permanent failure) into the record. Only stages still pending change, so a
 * message processed twice changes nothing. A stage the runner returned nothing for ends as failed.
 */
export function applyRunnerOutcome(record: ResourceRecord, outcome: RunnerOutcome): boolean {
  let changed = false;
  const r = outcome.result;
  const durationMs = r?.timings.total;
  for (const stage of outcome.stages) {
    if (record.stages[stage]?.state !== "pending") continue;
    let produced = false;
    if (r) {
      switch (stage) {
        case "metadata:video":
          if (r.metadata?.video) (record.results.video = r.metadata.video), (produced = true);
          break;
        case "metadata:audio":
          if (r.metadata?.audio) (record.results.audio = r.metadata.audio), (produced = true);
          break;
        case "metadata:image":
          if (r.metadata?.image) (record.results.image = r.metadata.image), (produced = true);
          break;
        case "preview:thumbnail":
          if (r.thumbnail) (record.results.thumbnail = r.thumbnail), (produced = true);
          break;
        case "preview:blurhash":
          if (r.placeholder) (record.results.placeholder = r.placeholder), (produced = true);
          break;
        case "preview:palette":
          if (r.dominantColor) {
            record.results.dominantColor = r.dominantColor;
            if (r.palette) record.results.palette = r.palette;
            produced = true;
          }
          break;
      }
    }
    changed =
      finishStage(record, stage, produced
        ? { state: "done", engine: "runner", ...(durationMs !== undefined ? { durationMs } : {}) }
        : { state: "failed", engine: "runner", error: outcome.error ?? "the media runner produced no result" }) || changed;
  }
  if (r?.bytesFetched !== undefined && changed) record.results.runnerBytesFetched = r.bytesFetched;
  if (r?.timings && changed) {
    for (const [k, v] of Object.entries(r.timings)) record.timings[`runner.${k}`] = v;
    if (r.timings.thumbnail !== undefined || r.timings.frame !== undefined) {
      record.timings.preview = (r.timings.frame ?? 0) + (r.timings.thumbnail ?? 0) + (r.timings.placeholder ?? 0) + (r.timings.palette ?? 0);
    }
  }
  return changed;
}

/** Records a transient failure on the stages (shown as job status `delayed`). */
export function noteRetry(record: ResourceRecord, stages: StageName[], error: string): void {
  for (const stage of stages) {
    const entry = record.stages[stage];
    if (entry?.state === "pending") {
      const { startedAt: _running, ...rest } = entry;
      record.stages[stage] = { ...rest, attempts: entry.attempts + 1, error };
    }
  }
}
