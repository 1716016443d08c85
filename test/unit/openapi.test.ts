import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createApp } from "../../worker/http/app.ts";

// The document is generated from the same zod schemas that validate requests; here a real OpenAPI 3.1
// validator checks it, and the contract's operations, codes and shapes are present.
describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document describing the inspect and job operations, errors and the webhook", async () => {
    const response = await createApp().request("/openapi.json");
    expect(response.status).toBe(200);
    const doc = (await response.json()) as any;
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
    const inspect = doc.paths["/api/v1/inspect"].post;
    expect(Object.keys(inspect.responses)).toEqual(expect.arrayContaining(["200", "202", "400", "403", "404", "408", "413", "500", "502"]));
    expect(inspect.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(["profile", "fields", "expand", "debug"]));
    const job = doc.paths["/api/v1/job/{id}"].get;
    const jobSchema = job.responses["200"].content["application/json"].schema;
    expect(JSON.stringify(jobSchema)).toContain("delayed");
    expect(doc.webhooks["inspection.completed"].post.requestBody.content["application/json"].schema).toBeDefined();
    expect(JSON.stringify(doc)).toContain("SSRF_BLOCKED");
  });

  it("the validator is not a rubber stamp: a document without info or with a bad response code fails", async () => {
    const doc = (await (await createApp().request("/openapi.json")).json()) as any;
    const withoutInfo = { ...doc, info: undefined };
    expect((await new Validator().validate(JSON.parse(JSON.stringify(withoutInfo)))).valid).toBe(false);
    const badCode = structuredClone(doc);
    badCode.paths["/api/v1/inspect"].post.responses = { nonsense: { description: "x" } };
    expect((await new Validator().validate(badCode)).valid).toBe(false);
  });
});
