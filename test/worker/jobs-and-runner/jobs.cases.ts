// GET /api/v1/job/{id}: id format (unguessable), 404s in the error envelope for unknown and malformed ids,
// the documented shape (checked against the zod schema the OpenAPI document is generated from) and the
// job and webhook shapes in /openapi.json.
import { SELF, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { JobResource, jobStatuses } from "../../../shared/schemas/job.ts";
import { inspect, media } from "../../../testkit/worker/helpers.ts";
import { getJob, pollJob } from "../../../testkit/worker/jobs.ts";

const jobIdShape = /^job_([0-9a-f]{64})_([0-9a-f]{32})$/;
const notFound = { status: "error", error: { code: "JOB_NOT_FOUND", message: expect.any(String) } };

async function newJob(file = "video.mp4"): Promise<string> {
  const res = await inspect(media(file));
  expect(res.status).toBe(202);
  return res.body.job.id;
}

describe("job ids", { timeout: 20_000 }, () => {
  it("are unguessable: 128 random bits per job, distinct for every caller of one resource", async () => {
    const url = media("video.mp4");
    const answers = await Promise.all([inspect(url), inspect(url), inspect(url)]);
    const ids = answers.map((a) => a.body.job.id as string);
    const parts = ids.map((id) => jobIdShape.exec(id));
    for (const p of parts) expect(p, "job id shape").not.toBeNull();
    // Same resource (same Durable Object), different random parts.
    expect(new Set(parts.map((p) => p![1])).size).toBe(1);
    expect(new Set(parts.map((p) => p![2])).size).toBe(3);
    // The random parts look random: across the three, nearly all 16 hex digits appear.
    expect(new Set(parts.map((p) => p![2]).join("")).size).toBeGreaterThanOrEqual(12);
    for (const id of ids) await pollJob(id);
  });

  it("an unknown but well-formed id (right object, wrong random part) -> 404 JOB_NOT_FOUND", async () => {
    const id = await newJob();
    const forged = id.replace(/_[0-9a-f]{32}$/, `_${"0".repeat(32)}`);
    const res = await getJob(forged);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound);
    await pollJob(id);
  });

  it("a well-formed id naming an object that never held a job -> 404 JOB_NOT_FOUND", async () => {
    const objectId = env.RESOURCE.idFromName(`never-inspected-${crypto.randomUUID()}`).toString();
    const res = await getJob(`job_${objectId}_${"ab".repeat(16)}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound);
  });

  it.each([
    ["garbage", "nope"],
    ["no random part", `job_${"a".repeat(64)}`],
    ["short random part", `job_${"a".repeat(64)}_${"b".repeat(31)}`],
    ["upper-case hex", `job_${"A".repeat(64)}_${"B".repeat(32)}`],
    ["hex that is no object id", `job_${"f".repeat(64)}_${"b".repeat(32)}`],
    ["very long", `job_${"a".repeat(5000)}`],
    ["encoded slash", "job_..%2F..%2Fetc"],
    ["unicode", "job_\u00e9\u00e9"],
  ])("a malformed id (%s) -> 404 JOB_NOT_FOUND, never 500", async (_name, id) => {
    const res = await getJob(id);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound);
    expect(res.body.error.message.length).toBeLessThan(400);
  });

  it("GET /api/v1/job/ with no id is a 404 in the error envelope", async () => {
    const response = await SELF.fetch("http://service/api/v1/job/");
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).status).toBe("error");
  });

  it("other methods on a job are refused in the error envelope", async () => {
    const id = await newJob();
    const response = await SELF.fetch(`http://service/api/v1/job/${id}`, { method: "DELETE" });
    expect(response.status).toBe(405);
    expect(((await response.json()) as any).error.code).toBe("METHOD_NOT_ALLOWED");
    await pollJob(id);
  });
});

describe("job shape", { timeout: 20_000 }, () => {
  it("every answer while polling matches the documented schema exactly (no undocumented keys)", async () => {
    const strict = JobResource.extend({ job: JobResource.shape.job.strict() }).strict();
    const { final, seen } = await pollJob(await newJob("video-moov-end.mp4"));
    for (const answer of seen) {
      const parsed = strict.safeParse(answer);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      if (answer.job.status !== "completed") expect(answer.job.completedAt).toBeUndefined();
    }
    expect(final.job.status).toBe("completed");
    expect(final.data.processing.status).toBe("complete");
    // Polling a finished job again gives the same answer.
    const again = await getJob(final.job.id);
    expect(again.body).toEqual(final);
  });
});

/** Follows local `$ref`s (schemas are named components) until a schema with content. */
const resolve = (doc: any, schema: any): any =>
  schema?.$ref ? resolve(doc, doc.components.schemas[schema.$ref.split("/").pop()]) : schema;

describe("/openapi.json", () => {
  it("documents GET /api/v1/job/{id} with the job statuses, progress, timestamps and the 404", async () => {
    const doc: any = await (await SELF.fetch("http://service/openapi.json")).json();
    const op = doc.paths["/api/v1/job/{id}"].get;
    const schema = resolve(doc, op.responses["200"].content["application/json"].schema);
    const job = resolve(doc, schema.properties.job);
    const status = resolve(doc, job.properties.status);
    expect(status.enum).toEqual([...jobStatuses]);
    expect(status.description).toEqual(expect.stringContaining("delayed"));
    expect(job.properties.progress).toMatchObject({ minimum: 0, maximum: 100 });
    expect(Object.keys(job.properties).sort()).toEqual(["completedAt", "createdAt", "failures", "id", "progress", "status"]);
    expect(job.required).toEqual(expect.arrayContaining(["id", "status", "progress", "createdAt"]));
    expect(schema.properties.data).toBeDefined();
    const errorSchema = resolve(doc, op.responses["404"].content["application/json"].schema);
    expect(resolve(doc, errorSchema.properties.error.properties.code).enum).toContain("JOB_NOT_FOUND");
    // The inspect 202 carries the brief job form.
    const inspect202 = resolve(doc, doc.paths["/api/v1/inspect"].post.responses["202"].content["application/json"].schema);
    expect(resolve(doc, inspect202.properties.job).properties.status.enum).toEqual(["processing", "complete"]);
    expect(inspect202.properties.message).toBeDefined();
  });

  it("documents the inspection.completed webhook: headers and payload", async () => {
    const doc: any = await (await SELF.fetch("http://service/openapi.json")).json();
    const hook = doc.webhooks?.["inspection.completed"]?.post;
    expect(hook).toBeDefined();
    expect(hook.parameters.map((p: any) => `${p.in}:${p.name}`).sort()).toEqual([
      "header:webhook-id", "header:webhook-signature", "header:webhook-timestamp",
    ]);
    const body = resolve(doc, hook.requestBody.content["application/json"].schema);
    expect(body.properties.type.enum).toEqual(["inspection.completed"]);
    expect(Object.keys(body.properties.data.properties).sort()).toEqual(["jobId", "result", "status", "url"]);
    expect(hook.description).toEqual(expect.stringContaining("HMAC-SHA256"));
  });
});
