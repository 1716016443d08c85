import { deriveProcessing } from "../../shared/projection/index.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { JobResource } from "../../shared/schemas/job.ts";
import type { JobRow } from "./job-store.ts";

type JobStatus = JobResource["job"]["status"];

/**
 * Extended job status, from the job row and the resource record (see JobStatus in shared/schemas/job.ts):
 * waiting (queued, nothing started), active (a stage is being worked on), delayed (a stage failed transiently
 * and waits for its retry), completed, failed (the resource could no longer be inspected).
 */
export function jobView(job: JobRow, record: ResourceRecord | undefined): JobResource["job"] {
  const base = { id: job.id, createdAt: new Date(job.created_at).toISOString() };
  if (!record) {
    return { ...base, status: "failed", progress: 100, completedAt: new Date(job.completed_at ?? Date.now()).toISOString() };
  }
  const processing = deriveProcessing(record);
  if (job.completed_at !== null || processing.status === "complete") {
    return { ...base, status: "completed", progress: 100, completedAt: new Date(job.completed_at ?? record.updatedAt).toISOString() };
  }
  const pending = processing.pendingStages.map((s) => record.stages[s]);
  // active: an engine is working on a stage; delayed: nothing running, a stage waits for its retry; else waiting.
  let status: JobStatus = "waiting";
  if (pending.some((s) => s?.startedAt !== undefined)) status = "active";
  else if (pending.some((s) => (s?.attempts ?? 0) > 0)) status = "delayed";
  return { ...base, status, progress: Math.round(processing.completion * 100) };
}
