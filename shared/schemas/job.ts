import { z } from "zod";
import { InspectResponse } from "./inspect.ts";

export const jobStatuses = ["waiting", "active", "completed", "failed", "delayed"] as const;
export const JobStatus = z.enum(jobStatuses).meta({
  description:
    "waiting: queued, no stage started; active: stages running; delayed: a stage is waiting to retry after an error; " +
    "completed: every stage done (some may have failed, see data.processing.failedStages); failed: the resource itself could not be inspected",
}).meta({ id: "JobStatus" });

/** Extended job form returned by GET /api/v1/job/{id}. */
export const JobResource = z.object({
  success: z.literal(true),
  job: z.object({
    id: z.string(),
    status: JobStatus,
    progress: z.number().min(0).max(100),
    createdAt: z.string().meta({ description: "ISO 8601" }),
    completedAt: z.string().optional().meta({ description: "ISO 8601; present once completed or failed" }),
  }),
  // Named InspectResponse (a $ref) so clients get the typed result; described on the Job schema.
  data: InspectResponse.optional(),
}).meta({ id: "Job", description: "An enrichment job; `data` is the inspection result (standard profile envelope) once completed" });
export type JobResource = z.infer<typeof JobResource>;
