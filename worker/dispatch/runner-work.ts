/**
 * One runner call for a resource's stages, whoever makes it (the Durable Object directly, or the queue
 * consumer on a retry): the runner's answer with its generated files stored (worker/previews), ready for the object to apply.
 */
import type { Config } from "../config/config.ts";
import type { RunnerWorkMessage } from "../../shared/schemas/queue.ts";
import { runnerStagesOf } from "../../shared/stages/index.ts";
import { callRunner, RunnerError } from "../runner/runner-client.ts";
import { engineBudgetSpentMessage, inspectionEngineSecondsBudget } from "../../shared/limits.ts";
import type { RunnerBudget } from "../../shared/shapes/runner.ts";
import { previewRevision, revisionLength, storeRunnerPreviews } from "../previews/preview-store.ts";
import { budgetAfter } from "../fetch/index.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { StageName } from "../../shared/schemas/stages.ts";
import type { RunnerOutcome } from "../record/runner-results.ts";
import type { RunnerHead } from "../../shared/shapes/runner.ts";

export type RunnerWork = Pick<RunnerWorkMessage, "resourceName" | "key" | "url" | "category" | "stages" | "durationHint" | "stream" | "requestId" | "client" | "budget" | "revision">;

/** What the runner needs for these stages, from the record (undefined for pages and embeds). */
export function runnerWorkFor(record: ResourceRecord, stages: StageName[]): RunnerWork | undefined {
  if (record.category !== "video" && record.category !== "audio" && record.category !== "image") return undefined;
  const durationHint = record.category === "video" ? record.results.video?.duration?.seconds : undefined;
  return {
    resourceName: record.normalizedUrl, key: record.key, url: record.probe.finalUrl, category: record.category, stages,
    revision: previewRevision(record),
    ...(durationHint !== undefined ? { durationHint } : {}),
    ...(record.results.streamPreview ? { stream: record.results.streamPreview } : {}),
    budget: inspectionBudgetLeft(record),
  };
}

/**
 * The runner's share of the inspection's budget: the origin requests and bytes the edge and earlier runner
 * calls left, and the engine time earlier runner calls (failed ones included) left.
 */
export function inspectionBudgetLeft(record: ResourceRecord): RunnerBudget {
  const engineMs = Math.max(0, inspectionEngineSecondsBudget * 1000 - (record.transfer?.engineMs ?? 0));
  return { ...budgetAfter(record.transfer).remaining(), engineMs };
}

/**
 * Throws the runner client's RunnerError on failure (classified permanent or transient). `head`: the edge's
 * bytes, on a direct call only (a queue message does not carry them).
 */
export async function performRunnerWork(env: Env, config: Config, work: RunnerWork, head?: RunnerHead): Promise<RunnerOutcome> {
  // Nothing left to spend: no runner job is started to be refused.
  if (work.budget?.engineMs === 0) throw new RunnerError("PAYLOAD_TOO_LARGE", engineBudgetSpentMessage(), true);
  const result = await callRunner(env, config, {
    url: work.url,
    category: work.category,
    stages: runnerStagesOf(work.stages),
    thumbnailMaxPx: config.THUMBNAIL_MAX_PX,
    ...(work.durationHint !== undefined ? { durationHint: work.durationHint } : {}),
    ...(work.stream ? { stream: work.stream } : head ? { head } : {}),
    ...(work.budget ? { budget: work.budget } : {}),
    ...(work.client ? { client: work.client } : {}),
  }, work.key, work.requestId);
  // A message queued before previews had revisions carries none: its files get the revision of no file.
  const revision = work.revision ?? "0".repeat(revisionLength);
  return { stages: work.stages, result: await storeRunnerPreviews(env, work.key, revision, result) };
}
