/**
 * Job ids carry the resource's Durable Object id (so GET /job/{id} can route without a lookup table) and
 * 128 random bits (so ids cannot be guessed or enumerated).
 */
const jobIdPattern = /^job_([0-9a-f]{64})_([0-9a-f]{32})$/;

export function newJobId(objectIdHex: string): string {
  const random = crypto.getRandomValues(new Uint8Array(16));
  return `job_${objectIdHex}_${[...random].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** The Durable Object id inside a job id, or undefined when the id is malformed. */
export function objectIdOfJob(jobId: string): string | undefined {
  return jobIdPattern.exec(jobId)?.[1];
}
