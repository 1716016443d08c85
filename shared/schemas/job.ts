import { z } from "zod";
import { InspectResponse } from "./inspect.ts";
import { StageName } from "./stages.ts";

export const jobStatuses = ["waiting", "active", "completed", "failed", "delayed"] as const;
/** What each status means; also shown in /openapi.json. */
export const jobStatusMeaning: Readonly<Record<(typeof jobStatuses)[number], string>> = {
  waiting: "queued: none of the job's stages has started yet",
  active: "an engine is working on at least one of the job's stages",
  delayed: "nothing is running; a stage failed transiently and waits for its retry",
  completed:
    "final: every stage the job waits for (those pending when it was created) is finished and at least one succeeded; " +
    "stages that failed are listed in job.failures",
  failed:
    "final: every stage the job waits for failed (the reasons are in job.failures), or the resource could no longer be " +
    "inspected (expired or its origin failed)",
};
export const JobStatus = z.enum(jobStatuses).meta({
  description: jobStatuses.map((s) => `${s}: ${jobStatusMeaning[s]}`).join("; "),
}).meta({ id: "JobStatus" });

export const JobFailure = z.object({
  stage: StageName.optional().meta({ description: "The stage that failed; absent when the resource itself is gone" }),
  error: z.string().meta({ description: "Why it failed (error code and message)" }),
});
export type JobFailure = z.infer<typeof JobFailure>;

/** Extended job form returned by GET /api/v1/job/{id}. */
export const JobResource = z.object({
  success: z.literal(true),
  job: z.object({
    id: z.string(),
    status: JobStatus,
    progress: z.number().min(0).max(100)
      .meta({ description: "Percent of the job's stages finished (done or failed); never decreases" }),
    createdAt: z.string().meta({ description: "ISO 8601" }),
    completedAt: z.string().optional().meta({ description: "ISO 8601; present once completed or failed" }),
    failures: z.array(JobFailure).optional()
      .meta({ description: "The job's failed stages with their reasons; present when any failed (always when status is failed)" }),
  }),
  // Named InspectResponse (a $ref) so clients get the typed result; described on the Job schema.
  data: InspectResponse.optional(),
}).meta({ id: "Job", description: "An enrichment job; `data` is the inspection result (standard profile envelope) once completed or failed (when the resource still exists)" });
export type JobResource = z.infer<typeof JobResource>;
