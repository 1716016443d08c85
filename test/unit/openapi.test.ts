import SwaggerParser from "@apidevtools/swagger-parser";
import { Validator } from "@seriousme/openapi-schema-validator";
import { AudioWaveform } from "../../shared/shapes/media-data.ts";
import { OembedDocument } from "../../shared/schemas/oembed-document.ts";
import { describe, expect, it } from "vitest";
import { ErrorBody } from "../../shared/schemas/error.ts";
import { EmbedResponse, InspectResponse } from "../../shared/schemas/inspect.ts";
import { JobResource } from "../../shared/schemas/job.ts";
import { createApp } from "../../worker/http/app.ts";

// The document is generated from the same zod schemas that validate requests. Two independent validators
// check it (the OpenAPI 3.1 JSON schema, and swagger-parser with $ref resolution), then the properties a
// client generator relies on are checked one by one.
async function openapiDocument(): Promise<any> {
  const response = await createApp().request("http://inspect.test/openapi.json", {}, { PUBLIC_BASE_URL: "https://media.example" });
  expect(response.status).toBe(200);
  return response.json();
}

const operations = (doc: any) =>
  Object.entries(doc.paths).flatMap(([path, item]: [string, any]) => Object.entries(item).map(([method, op]) => ({ path, method, op: op as any })));

describe("GET /openapi.json", () => {
  it("is valid for @seriousme/openapi-schema-validator (OpenAPI 3.1)", async () => {
    const doc = await openapiDocument();
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
  });

  it("is valid for @apidevtools/swagger-parser, every $ref resolving", async () => {
    const doc = await openapiDocument();
    const api: any = await SwaggerParser.validate(structuredClone(doc));
    expect(api.info.title).toBe("Media URL Inspection API");
    const dereferenced: any = await SwaggerParser.dereference(structuredClone(doc));
    expect(dereferenced.paths["/api/v1/job/{id}"].get.responses["200"].content["application/json"].schema.properties.data.properties.processing).toBeDefined();
  });

  it("the validators are not rubber stamps: a document without info or with a bad response code fails both", async () => {
    const doc = await openapiDocument();
    const withoutInfo = JSON.parse(JSON.stringify({ ...doc, info: undefined }));
    expect((await new Validator().validate(withoutInfo)).valid).toBe(false);
    await expect(SwaggerParser.validate(structuredClone(withoutInfo))).rejects.toThrow();
    const danglingRef = structuredClone(doc);
    danglingRef.paths["/api/v1/inspect"].post.responses["200"].content["application/json"].schema = { $ref: "#/components/schemas/Nope" };
    await expect(SwaggerParser.validate(danglingRef)).rejects.toThrow(/Nope/);
    const badCode = structuredClone(doc);
    badCode.paths["/api/v1/inspect"].post.responses = { nonsense: { description: "x" } };
    expect((await new Validator().validate(badCode)).valid).toBe(false);
  });

  it("names its schemas as components and refers to them", async () => {
    const doc = await openapiDocument();
    const names = Object.keys(doc.components.schemas);
    const expected = ["InspectRequest", "InspectResponse", "EmbedResponse", "Processing", "Job", "JobStatus", "JobBrief", "ErrorBody",
      "ErrorCode", "WebhookEvent", "InspectData", "Identity", "Semantic", "Provider", "Playback", "Metadata", "ImageMetadata",
      "VideoMetadata", "AudioMetadata", "Preview", "Thumbnail", "ProviderData", "Diagnostics", "Network"];
    expect(expected.filter((n) => !names.includes(n))).toEqual([]);
    const inspect = doc.paths["/api/v1/inspect"].post;
    expect(inspect.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/InspectRequest" });
    expect(inspect.responses["202"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/InspectResponse" });
    expect(doc.components.schemas.Job.properties.data).toMatchObject({ $ref: "#/components/schemas/InspectResponse" });
    expect(doc.components.schemas.InspectResponse.properties.data).toEqual({ $ref: "#/components/schemas/InspectData" });
  });

  it("gives each operation an operationId and a tag, servers and an empty security requirement", async () => {
    const doc = await openapiDocument();
    const ops = operations(doc);
    expect(ops.map((o) => `${o.method} ${o.path}`).sort()).toEqual([
      "get /api/v1/inspect", "get /api/v1/job/{id}", "get /api/v1/storyboards/{file}", "get /api/v1/thumbnails/{file}",
      "get /api/v1/waveforms/{file}", "get /oembed", "get /v", "get /v/{id}", "get /v/{id}/card.png", "post /api/v1/inspect",
      "post /api/v1/inspect/batch",
    ]);
    for (const { op } of ops) {
      expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.tags).toHaveLength(1);
      expect(doc.tags.map((t: any) => t.name)).toContain(op.tags[0]);
    }
    expect(new Set(ops.map((o) => o.op.operationId)).size).toBe(ops.length);
    expect(doc.servers).toEqual([{ url: "https://media.example", description: "This service" }]);
    expect(doc.security).toEqual([]);
    expect(doc.webhooks["inspection.completed"].post.operationId).toBe("inspectionCompleted");
  });

  it("servers defaults to the origin the document was requested from", async () => {
    const doc: any = await (await createApp().request("http://127.0.0.1:9999/openapi.json", {}, {})).json();
    expect(doc.servers[0].url).toBe("http://127.0.0.1:9999");
  });

  it("documents every status the service answers, including 405, 413 and 415", async () => {
    const doc = await openapiDocument();
    const inspect = doc.paths["/api/v1/inspect"].post;
    expect(Object.keys(inspect.responses).sort()).toEqual(["200", "202", "400", "403", "404", "405", "408", "409", "413", "415", "422", "429", "500", "502"]);
    expect(Object.keys(inspect.responses["202"].headers)).toEqual(expect.arrayContaining(["Location", "Retry-After", "X-Request-Id", "Server-Timing"]));
    expect(Object.keys(doc.paths["/api/v1/job/{id}"].get.responses).sort()).toEqual(["200", "404", "405", "500"]);
    expect(Object.keys(doc.paths["/api/v1/thumbnails/{file}"].get.responses).sort()).toEqual(["200", "304", "404", "405", "500"]);
    expect(inspect.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(["profile", "fields", "expand", "debug"]));
  });

  it("types url and webhookUrl as URIs with a maximum length", async () => {
    const body = (await openapiDocument()).components.schemas.InspectRequest;
    expect(body.properties.url).toMatchObject({ type: "string", format: "uri", maxLength: 2048 });
    expect(body.properties.webhookUrl).toMatchObject({ type: "string", format: "uri", maxLength: 2048 });
    expect(body.required).toEqual(["url"]);
  });

  it("every example is valid for its schema and an error example's code matches its status", async () => {
    const doc = await openapiDocument();
    const statusOfCode: Record<string, number[]> = {
      INVALID_URL: [400], INVALID_PAYLOAD: [400], INVALID_PARAMETER: [400], SSRF_BLOCKED: [403], RESOURCE_NOT_FOUND: [404],
      JOB_NOT_FOUND: [404], NOT_FOUND: [404], METHOD_NOT_ALLOWED: [405], UPSTREAM_TIMEOUT: [408], PAYLOAD_TOO_LARGE: [413], RATE_LIMITED: [429],
      UNSUPPORTED_MEDIA_TYPE: [415], INTERNAL_ERROR: [500], BAD_GATEWAY: [502], NOT_IMPLEMENTED: [501], IDEMPOTENCY_KEY_REUSED: [422], IDEMPOTENCY_KEY_IN_USE: [409],
    };
    let checked = 0;
    for (const { path, op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses) as [string, any][]) {
        const examples = response.content?.["application/json"]?.examples;
        if (!examples && response.content?.["application/json"]) throw new Error(`${path} ${status} has no example`);
        for (const [name, example] of Object.entries(examples ?? {}) as [string, any][]) {
          const value = example.value;
          checked++;
          if (Number(status) >= 400) {
            const body = ErrorBody.parse(value);
            expect(statusOfCode[body.error.code], `${path} ${status} ${name}`).toContain(Number(status));
          } else if (path.startsWith("/api/v1/job")) {
            JobResource.parse(value);
          } else if (path === "/oembed") {
            OembedDocument.parse(value);
          } else if (path.startsWith("/api/v1/waveforms/")) {
            AudioWaveform.parse(value);
          } else if (path === "/api/v1/inspect/batch") {
            expect(value.success).toBe(true);
            for (const result of value.results) (result.status === "error" ? ErrorBody : InspectResponse).parse(result);
          } else if (value.profile === "embed") {
            EmbedResponse.parse(value);
          } else {
            const body = InspectResponse.parse(value);
            const p = body.processing;
            // Self-consistent: complete means completion 1 and nothing pending, partial the opposite.
            expect(p.status === "complete", `${name}`).toBe(p.pendingStages.length === 0);
            expect(p.completion === 1, `${name}`).toBe(p.status === "complete");
            expect(p.enrichmentsPending).toBe(p.pendingStages.length > 0);
            expect(body.job !== undefined, `${name}: a 202 carries a job`).toBe(status === "202");
            expect(body.projection.profile === "full", name).toBe(body.data.diagnostics !== undefined);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(15);
    const byCode = (op: any, status: string) =>
      Object.values(op.responses[status].content["application/json"].examples).map((x: any) => x.value.error.code);
    expect(new Set(byCode(doc.paths["/api/v1/inspect"].post, "400"))).toEqual(new Set(["INVALID_URL", "INVALID_PAYLOAD", "INVALID_PARAMETER"]));
  });
});
