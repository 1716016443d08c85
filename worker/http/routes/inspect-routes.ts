/** The inspect routes: POST and GET inspect, batch, and the job to poll. */
import { createRoute, z } from "@hono/zod-openapi";
import { ErrorBody } from "../../../shared/schemas/error.ts";
import { BatchBody, EmbedResponse, InspectBody, InspectByQuery, InspectQuery, InspectResponse, maxBatchUrls } from "../../../shared/schemas/inspect.ts";
import { JobResource } from "../../../shared/schemas/job.ts";
import { errorExamples as e, inspectExamples, jobExamples } from "../openapi-examples.ts";
import { maxRequestBodyBytes } from "../json-body.ts";
import { errorResponse, one, requestIdHeader, methodNotAllowed, internal, inspectErrors, inspectAnswers, inspectByQueryErrors, idempotencyText } from "./responses.ts";

export const inspectRoute = createRoute({
  method: "post",
  path: "/api/v1/inspect",
  operationId: "inspectUrl",
  tags: ["Inspection"],
  summary: "Inspect a media URL",
  description:
    "Probes a public http(s) URL with Range requests (never a full download) and answers what it is and how to show it. " +
    "`profile` picks depth: fast (no generated previews), standard (200 when complete, else 202 with a job), full (waits " +
    "for every stage, includes diagnostics), embed (render instructions only). A stage that fails ends as done with no " +
    `result: its fields are omitted and it is listed in processing.failedStages. The body is JSON of at most ${maxRequestBodyBytes} bytes.` +
    idempotencyText,
  request: {
    query: InspectQuery,
    body: { required: true, description: "Content-Type: application/json", content: { "application/json": { schema: InspectBody } } },
  },
  responses: { ...inspectAnswers, ...inspectErrors },
});

export const inspectByQueryRoute = createRoute({
  method: "get",
  path: "/api/v1/inspect",
  operationId: "inspectUrlByQuery",
  tags: ["Inspection"],
  summary: "Inspect a media URL given in the query",
  description:
    "The same inspection and answers as POST, with the URL as the `url` query parameter (percent-encoded). For browsers: " +
    "a GET without custom headers is a CORS simple request, so it costs no preflight round trip; and for links. " +
    "There is no webhookUrl here (a GET registers nothing); POST keeps the target URL out of access logs along the way. " +
    "Header If-None-Match with the ETag of an earlier complete answer: 304 while it is current.",
  request: {
    query: InspectByQuery,
  },
  responses: {
    ...inspectAnswers,
    304: { description: "Not modified: the If-None-Match ETag names the current answer", headers: { ETag: { schema: { type: "string" as const } } } },
    ...inspectByQueryErrors,
  },
});

export const BatchResponse = z.object({
  success: z.literal(true),
  results: z.array(z.union([InspectResponse, EmbedResponse, ErrorBody]))
    .meta({ description: "One answer per URL, in the order sent: the inspect envelope, or the error envelope (status: error) for that URL" }),
}).meta({ id: "BatchResponse" });

export const batchRoute = createRoute({
  method: "post",
  path: "/api/v1/inspect/batch",
  operationId: "inspectBatch",
  tags: ["Inspection"],
  summary: `Inspect up to ${maxBatchUrls} URLs in one request`,
  description:
    `Each URL is inspected exactly as POST /api/v1/inspect would (same query parameters, same caching, same errors), ` +
    `concurrently within per-origin limits, and answers in its own slot of \`results\`, in order; one URL failing never ` +
    "fails the batch. Each URL counts against the client's rate limit: URLs over it answer RATE_LIMITED in their slot " +
    "(the whole request is 429 only when none fits). A webhookUrl registers one job per URL." + idempotencyText,
  request: {
    query: InspectQuery,
    body: { required: true, description: "Content-Type: application/json", content: { "application/json": { schema: BatchBody } } },
  },
  responses: {
    200: {
      description: "One result per URL, in order",
      headers: { "X-Request-Id": requestIdHeader },
      content: { "application/json": { schema: BatchResponse, examples: {
        mixed: one("Two URLs: one inspected, one whose origin answered 404", {
          success: true, results: [inspectExamples[200].fast.value, e.resourceNotFound],
        }),
      } } },
    },
    400: inspectErrors[400],
    413: inspectErrors[413],
    415: inspectErrors[415],
    422: inspectErrors[422],
    429: inspectErrors[429],
    500: internal,
  },
});

export const jobRoute = createRoute({
  method: "get",
  path: "/api/v1/job/{id}",
  operationId: "getJob",
  tags: ["Jobs"],
  summary: "Get an enrichment job",
  request: {
    params: z.object({
      id: z.string().meta({ description: "Job id from a 202 inspect answer (also its Location header)", example: jobExamples.running.value.job.id }),
    }),
  },
  responses: {
    200: {
      description: "The job; `data` holds the inspection result (standard profile) once completed",
      headers: { "X-Request-Id": requestIdHeader },
      content: { "application/json": { schema: JobResource, examples: jobExamples } },
    },
    404: errorResponse("JOB_NOT_FOUND: unknown, expired or malformed job id", { jobNotFound: one("JOB_NOT_FOUND", e.jobNotFound) }),
    405: methodNotAllowed("GET, HEAD"),
    500: internal,
  },
});
