import { OpenAPIHono } from "@hono/zod-openapi";
import { swaggerUI } from "@hono/swagger-ui";
import type { Context } from "hono";
import type { InspectBody, InspectQuery } from "../../shared/schemas/inspect.ts";
import { setMetric, startTime, endTime, timing } from "hono/timing";
import { getConfig } from "../config/config.ts";
import { errors } from "../errors/api-error.ts";
import { inspectUrl, type InspectOutcome } from "../service/inspect-service.ts";
import { getJob } from "../service/job-service.ts";
import type { AppEnv } from "./app-env.ts";
import { corsForConfiguredOrigins } from "./cors.ts";
import { inspectRateLimit, clientAddressOf } from "./rate-limit.ts";
import { notFound, onError, validationHook, wrongMethod } from "./error-handling.ts";
import { batchBodyLimit, requestBodyLimit } from "./json-body.ts";
import { admitBatch } from "./batch-rate.ts";
import { idempotency } from "./idempotency.ts";
import { inspectBatch } from "../service/batch.ts";
import { noSniff } from "./nosniff.ts";
import { annotate, requestIdentity, requestLog } from "./request-log.ts";
import { batchRoute, completionWebhook, inspectByQueryRoute, inspectRoute, jobRoute, oembedRoute, sharePageRoute, storyboardRoute, thumbnailRoute } from "./route-definitions.ts";
import { shareByIdRoute, shareCardRoute, waveformDataRoute } from "./route-definitions.ts";
import { answerShareCard } from "./share-card.ts";
import { urlOfShareIdParam } from "./share-id-param.ts";
import { answerOembed } from "./oembed-handler.ts";
import { answerSharePage } from "./share-page.ts";
import { serveThumbnail } from "./thumbnail-handler.ts";
import { serveStoryboardVtt } from "./storyboard-handler.ts";
import { serveWaveformData } from "./waveform-handler.ts";
import { answerCaching, notModified } from "./answer-caching.ts";
import { problemDetails } from "./problem-details.ts";
import { answerProblemType } from "./problem-pages.ts";
import { isComplete } from "../record/stage-state.ts";
import { answerMcp, mcpOriginGuard } from "./mcp/index.ts";

/** Seconds a 202 asks the caller to wait before polling its job (`Retry-After`). */
export const jobPollAfterSeconds = 2;

/** The service's public origin: `PUBLIC_BASE_URL` when configured, else the origin this request came to. */
function publicBaseUrl(c: Context<AppEnv>): string {
  return (getConfig(c.env).PUBLIC_BASE_URL ?? new URL(c.req.url).origin).replace(/\/+$/, "");
}

/** Server-Timing metric names are tokens: stage names such as `metadata:image` become `stage-metadata-image`. */
const metricName = (stage: string) => `stage-${stage.replace(/[^A-Za-z0-9_-]/g, "-")}`;

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  // Order matters: nosniff outermost (it lands on every answer, whoever wrote it), the id (every later line and
  // response carries it), the log line (it sees the final status), the 405 check (turns the 404 of a path served
  // under other methods into 405), CORS (preflights answered before routing), then per-route limits before any
  // parsing (the per-client rate limit, then the body size).
  app.use(noSniff);
  app.use(requestIdentity);
  app.use(requestLog);
  // Inside the id (its `instance`), outside everything that writes an error envelope.
  app.use(problemDetails(publicBaseUrl));
  app.use(wrongMethod(app));
  app.use(corsForConfiguredOrigins);
  app.use("/api/v1/inspect", timing({ totalDescription: "this request", crossOrigin: true }));
  // Every method that reaches an inspection is counted: GET (and HEAD, which Hono routes to GET) and POST.
  app.on(["GET", "POST"], "/api/v1/inspect", inspectRateLimit());
  app.post("/api/v1/inspect", requestBodyLimit);
  // /oembed and the share pages (/v, /v/{id} and its card) run an inspection each: counted in the same per-client window.
  app.get("/oembed", inspectRateLimit());
  app.get("/v", inspectRateLimit());
  app.get("/v/:id", inspectRateLimit());
  app.get("/v/:id/card.png", inspectRateLimit());
  // The batch spends the rate limit per URL, in its handler (batch-rate.ts), once the URLs are known.
  app.post("/api/v1/inspect/batch", batchBodyLimit);
  // After the body limits (the fingerprint reads a bounded body), before any inspection.
  app.post("/api/v1/inspect", idempotency);
  app.post("/api/v1/inspect/batch", idempotency);

  // Chained so the route types accumulate into AppType (what `hono/client` reads).
  const routes = app
    .openapi(inspectRoute, async (c) => {
      const answer = await answerInspection(c, c.req.valid("json"), c.req.valid("query"));
      return inspectionJson(c, answer.outcome);
    })
    .openapi(inspectByQueryRoute, async (c) => {
      const { url, ...query } = c.req.valid("query");
      if (c.req.query("webhookUrl") !== undefined) throw errors.invalidParameter("webhookUrl needs POST /api/v1/inspect: a GET registers no deliveries.");
      const answer = await answerInspection(c, { url }, query);
      return answer.notModified ? c.body(null, 304) : inspectionJson(c, answer.outcome);
    })
    .openapi(batchRoute, async (c) => {
      const body = c.req.valid("json");
      const { admitted, headers } = await admitBatch(c, body.urls.length);
      for (const [name, value] of Object.entries(headers)) c.header(name, value);
      if (!admitted.some(Boolean)) throw errors.rateLimited(headers["Retry-After"]);
      annotate(c, { profile: c.req.valid("query").profile, batchSize: body.urls.length });
      const caller = { requestId: c.get("requestId"), clientAddress: clientAddressOf(c.req.raw, c.env) };
      const results = await inspectBatch(c.env, body, c.req.valid("query"), admitted, publicBaseUrl(c), caller);
      return c.json({ success: true as const, results }, 200);
    })
    .openapi(jobRoute, async (c) => c.json(await getJob(c.env, c.req.valid("param").id, publicBaseUrl(c)), 200))
    .openapi(thumbnailRoute, async (c) => serveThumbnail(c, c.req.valid("param").file))
    .openapi(storyboardRoute, async (c) => serveStoryboardVtt(c, c.req.valid("param").file))
    .openapi(waveformDataRoute, async (c) => serveWaveformData(c, c.req.valid("param").file, c.req.valid("query").bits === "16" ? 16 : 8))
    .openapi(oembedRoute, async (c) => answerOembed(c, c.req.valid("query"), publicBaseUrl(c)))
    .openapi(sharePageRoute, async (c) => answerSharePage(c, c.req.valid("query").url, publicBaseUrl(c)))
    .openapi(shareByIdRoute, async (c) => answerSharePage(c, urlOfShareIdParam(c.req.valid("param").id), publicBaseUrl(c)))
    .openapi(shareCardRoute, async (c) => answerShareCard(c, urlOfShareIdParam(c.req.valid("param").id), publicBaseUrl(c)))
    .get("/health", (c) => c.json({ status: "ok" as const }, 200))
    // The problem type URIs of RFC 9457 answers resolve to what they mean: a page for browsers, JSON for clients.
    .get("/problems/:name", answerProblemType(publicBaseUrl));

  // The MCP server (worker/http/mcp/): stateless Streamable HTTP, so POST only (GET and DELETE answer 405).
  app.post("/mcp", mcpOriginGuard(publicBaseUrl), (c) => answerMcp(c, publicBaseUrl(c)));

  app.openAPIRegistry.registerWebhook(completionWebhook);
  app.doc31("/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Media URL Inspection API",
      version: "1.0.0",
      description: "Inspects an http(s) URL without downloading it: type, playback, metadata, previews, provider data.",
    },
    servers: [{ url: publicBaseUrl(c as Context<AppEnv>), description: "This service" }],
    // A public API: no operation needs a credential.
    security: [],
    tags: [
      { name: "Inspection", description: "Inspect a URL" },
      { name: "Jobs", description: "Poll background enrichments" },
      { name: "Thumbnails", description: "Generated previews" },
      { name: "Webhooks", description: "Events sent to a webhookUrl" },
      { name: "Sharing", description: "oEmbed and share pages for media URLs" },
    ],
  }));
  // Swagger UI assets are served from /vendor by Workers Static Assets, so the page works offline.
  app.get("/api-docs", swaggerUI({ url: "/openapi.json", baseUrl: "/vendor", title: "Media URL Inspection API" }));

  app.notFound(notFound);
  app.onError(onError);
  return routes;
}

/**
 * One inspection answered, whichever form asked (POST body or GET query): log fields, timings, job headers, and
 * whether the caller's If-None-Match names it (only a GET can be answered 304, so only its route declares one).
 */
async function answerInspection(c: Context<AppEnv>, body: InspectBody, query: InspectQuery) {
  annotate(c, { profile: query.profile, targetHost: hostOf(body.url) });
  const base = publicBaseUrl(c);
  startTime(c, "inspect", "inspection (edge cache or the resource's Durable Object)");
  const outcome = await inspectUrl(c.env, body, query, base, { requestId: c.get("requestId"), clientAddress: clientAddressOf(c.req.raw, c.env) });
  endTime(c, "inspect");
  const { record } = outcome;
  for (const [stage, ms] of Object.entries(record.timings)) setMetric(c, metricName(stage), ms, `stage ${stage}`);
  annotate(c, {
    responseSource: outcome.responseSource,
    // Only the request that probed pulled bytes; cached and joined answers pulled none themselves.
    bytesPulled: outcome.responseSource === "fresh" ? record.probe.bytesFetched : 0,
    ...(outcome.pendingJobId ? { jobId: outcome.pendingJobId } : {}),
  });
  if (outcome.status === 202 && outcome.pendingJobId) {
    c.header("Location", `${base}/api/v1/job/${outcome.pendingJobId}`);
    c.header("Retry-After", String(jobPollAfterSeconds));
  }
  const complete = outcome.status === 200 && isComplete(record);
  const caching = await answerCaching(outcome.body, record, outcome.responseSource, complete, Date.now(), outcome.revalidation);
  for (const [name, value] of Object.entries(caching.headers)) c.header(name, value);
  return { notModified: complete && notModified(c.req.method, c.req.header("if-none-match"), caching.etag), outcome };
}

/** The answer's JSON under its status: 202 is the inspect shape with a job (each status has its declared body). */
function inspectionJson(c: Context<AppEnv>, outcome: InspectOutcome) {
  return outcome.status === 202 ? c.json(outcome.body, 202) : c.json(outcome.body, 200);
}

/** The app's type, for `hono/client` (see client/). */
export type AppType = ReturnType<typeof createApp>;

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
