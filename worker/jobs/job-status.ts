import type { StageName } from "../../shared/schemas/stages.ts";
import { registeredStages } from "../../shared/stages/index.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { JobFailure, JobResource } from "../../shared/schemas/job.ts";
import type { JobRow } from "./job-store.ts";

type JobStatus = JobResource["job"]["status"];
type JobView = JobResource["job"];

const GONE = "RESOURCE_GONE: the resource could no longer be inspected (expired, or its origin failed on re-inspection)";

/** The stages a job waits for: those pending when it was created (older rows without the list: all registered). */
export function jobStages(job: JobRow, record: ResourceRecord): StageName[] {
  // The record's own registration: opt-in stages a caller asked for (expand) count like the category's.
  const registered = registeredStages(record);
  if (job.stages === null) return [...registered];
  const listed = JSON.parse(job.stages) as StageName[];
  return listed.filter((s) => registered.includes(s));
}

/**
 * Extended job status from the job row and the resource record (meanings: jobStatusMeaning in
 * shared/schemas/job.ts). Terminal once every stage the job waits for is finished: `failed` if all of them
 * failed, else `completed`. Progress is the share of the job's stages finished, never below what was shown
 * before (job.progress, the high-water mark the caller persists).
 */
export function jobView(job: JobRow, record: ResourceRecord | undefined): JobView {
  const base = { id: job.id, createdAt: new Date(job.created_at).toISOString() };
  if (!record) {
    return {
      ...base,
      status: "failed",
      progress: 100,
      completedAt: new Date(job.completed_at ?? Date.now()).toISOString(),
      failures: [{ error: GONE }],
    };
  }
  const stages = jobStages(job, record);
  const entries = stages.map((s) => ({ stage: s, entry: record.stages[s] }));
  const pending = entries.filter((e) => (e.entry?.state ?? "pending") === "pending");
  const failed = entries.filter((e) => e.entry?.state === "failed");
  const failures: JobFailure[] = failed.map((e) => ({ stage: e.stage, error: e.entry?.error ?? "stage failed" }));
  const withFailures = failures.length > 0 ? { failures } : {};

  // A job row completed by the resource stays final even if a later record (re-inspection) is pending again.
  if (pending.length === 0 || job.completed_at !== null) {
    const finishedAt = Math.max(0, ...entries.map((e) => e.entry?.finishedAt ?? 0));
    const at = job.completed_at ?? (finishedAt || record.updatedAt);
    const status: JobStatus = stages.length > 0 && failed.length === stages.length ? "failed" : "completed";
    return { ...base, status, progress: 100, completedAt: new Date(at).toISOString(), ...withFailures };
  }
  const share = stages.length === 0 ? 1 : (stages.length - pending.length) / stages.length;
  const progress = Math.max(job.progress, Math.min(99, Math.round(share * 100)));
  // active: an engine is working on a stage; delayed: nothing running, a stage waits for its retry; else waiting.
  let status: JobStatus = "waiting";
  if (pending.some((e) => e.entry?.startedAt !== undefined)) status = "active";
  else if (pending.some((e) => (e.entry?.attempts ?? 0) > 0)) status = "delayed";
  return { ...base, status, progress, ...withFailures };
}
