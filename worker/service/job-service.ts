import { project } from "../../shared/projection/index.ts";
import type { JobResource } from "../../shared/schemas/job.ts";
import type { InspectResponse } from "../../shared/schemas/inspect.ts";
import type { JobReply } from "../object/resource-rpc.ts";
import { objectIdOfJob } from "../jobs/job-id.ts";
import { ApiError } from "../errors/api-error.ts";
import { callOnceMoreIfReset, resourceById } from "../object/resource-rpc.ts";

const notFound = (id: string) =>
  new ApiError(404, "JOB_NOT_FOUND", `No job with id ${JSON.stringify(id.slice(0, 200))} (unknown, expired or malformed).`);

/** GET /api/v1/job/{id}: the job's extended form, plus the standard-profile result once completed. */
export async function getJob(env: Env, id: string, baseUrl?: string): Promise<JobResource> {
  const objectId = objectIdOfJob(id);
  if (!objectId) throw notFound(id);
  let stub: ReturnType<typeof resourceById>;
  try {
    stub = resourceById(env, objectId);
  } catch {
    throw notFound(id);
  }
  const reply = await callOnceMoreIfReset<typeof stub, JobReply>(stub, () => resourceById(env, objectId), (s) => s.getJob(id));
  if (!reply.found) throw notFound(id);
  const data =
    (reply.job.status === "completed" || reply.job.status === "failed") && reply.record
      ? (project(reply.record, { profile: "standard", responseSource: "cache", ...(baseUrl ? { baseUrl } : {}) }) as InspectResponse)
      : undefined;
  return { success: true, job: reply.job, ...(data ? { data } : {}) };
}
