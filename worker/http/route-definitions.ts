import { createRoute, z } from "@hono/zod-openapi";
import { ErrorBody } from "../../shared/schemas/error.ts";
import { EmbedResponse, InspectBody, InspectQuery, InspectResponse } from "../../shared/schemas/inspect.ts";
import { JobResource } from "../../shared/schemas/job.ts";
import { WebhookEvent } from "../../shared/schemas/webhook.ts";

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: ErrorBody } } });

const errorResponses = {
  400: errorResponse("INVALID_URL, INVALID_PAYLOAD or INVALID_PARAMETER: the message says what to fix"),
  403: errorResponse("SSRF_BLOCKED: the target (or a redirect hop) resolves to a denied address"),
  404: errorResponse("RESOURCE_NOT_FOUND: the remote server answered 404"),
  408: errorResponse("UPSTREAM_TIMEOUT: the remote exchange passed the 10 s deadline"),
  413: errorResponse("PAYLOAD_TOO_LARGE: the remote file exceeds 50 MB (declared or streamed)"),
  500: errorResponse("INTERNAL_ERROR: unexpected failure (no internals are disclosed)"),
  502: errorResponse("BAD_GATEWAY: the remote server failed, reset, redirected too often or sent garbage"),
} as const;

export const inspectRoute = createRoute({
  method: "post",
  path: "/api/v1/inspect",
  summary: "Inspect a media URL",
  description:
    "Probes a public http(s) URL with Range requests (never a full download) and answers what it is and how to show it. " +
    "`profile` picks depth: fast (no generated previews), standard (200 when complete, else 202 with a job), full (waits " +
    "for every stage, includes diagnostics), embed (render instructions only). A stage that fails ends as done with no " +
    "result: its fields are omitted and it is listed in processing.failedStages.",
  request: {
    query: InspectQuery,
    body: { required: true, content: { "application/json": { schema: InspectBody } } },
  },
  responses: {
    200: {
      description: "Inspection result (complete, cached, or fast). profile=embed answers the embed shape.",
      content: { "application/json": { schema: z.union([InspectResponse, EmbedResponse]) } },
    },
    202: {
      description:
        "standard profile on heavy media: the initial inspection is done; enrichments continue as `job`. Also `full` when " +
        "the stages did not finish within FULL_WAIT_TIMEOUT_MS (default 25 s): the same answer, so the caller can poll the job.",
      content: { "application/json": { schema: InspectResponse } },
    },
    ...errorResponses,
  },
});

export const jobRoute = createRoute({
  method: "get",
  path: "/api/v1/job/{id}",
  summary: "Get an enrichment job",
  request: { params: z.object({ id: z.string().meta({ description: "Job id from a 202 inspect answer" }) }) },
  responses: {
    200: { description: "The job; `data` holds the inspection result once completed", content: { "application/json": { schema: JobResource } } },
    404: errorResponse("JOB_NOT_FOUND: unknown, expired or malformed job id"),
  },
});

export const thumbnailRoute = createRoute({
  method: "get",
  path: "/api/v1/thumbnails/{file}",
  summary: "A generated thumbnail (WebP)",
  request: { params: z.object({ file: z.string() }) },
  responses: {
    200: { description: "WebP image, cacheable for a year (content-addressed)", content: { "image/webp": { schema: z.string().meta({ format: "binary" }) } } },
    404: errorResponse("NOT_FOUND: no such thumbnail"),
  },
});

/** Documented under `webhooks` (OpenAPI 3.1): what a `webhookUrl` receives. */
export const completionWebhook = {
  method: "post" as const,
  path: "inspection.completed",
  summary: "Inspection completed",
  description:
    "Sent once per inspection that named a webhookUrl, when every stage is done. Signed per Standard Webhooks: " +
    "`webhook-id`, `webhook-timestamp` (Unix seconds), `webhook-signature` = `v1,` + base64(HMAC-SHA256(secret, id.timestamp.body)). " +
    "Retried with exponential backoff (1 s, 2 s, 4 s, ... up to WEBHOOK_MAX_ATTEMPTS) until the receiver answers 2xx.",
  request: {
    headers: z.object({
      "webhook-id": z.string(),
      "webhook-timestamp": z.string(),
      "webhook-signature": z.string(),
    }),
    body: { content: { "application/json": { schema: WebhookEvent } } },
  },
  responses: { 200: { description: "Any 2xx acknowledges the delivery; anything else is retried" } },
};
