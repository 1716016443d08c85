import { OpenAPIHono } from "@hono/zod-openapi";
import { swaggerUI } from "@hono/swagger-ui";
import { inspectUrl } from "../inspect/inspect-service.ts";
import { errorBody } from "../errors/api-error.ts";
import { notFound, onError, validationHook } from "./error-handling.ts";
import { completionWebhook, inspectRoute, jobRoute, thumbnailRoute } from "./route-definitions.ts";
import { getJob } from "../jobs/job-service.ts";
import { inspectRateLimit } from "./rate-limit.ts";
import { objectKeyForFile } from "../enrich/thumbnail-store.ts";

export function createApp() {
  const app = new OpenAPIHono<{ Bindings: Env }>({ defaultHook: validationHook });
  app.use("/api/v1/inspect", inspectRateLimit());

  app.openapi(inspectRoute, async (c) => {
    const outcome = await inspectUrl(c.env, c.req.valid("json"), c.req.valid("query"));
    return c.json(outcome.body as never, outcome.status);
  });

  app.openapi(jobRoute, async (c) => c.json(await getJob(c.env, c.req.valid("param").id), 200));

  app.openapi(thumbnailRoute, async (c) => {
    const key = objectKeyForFile(c.req.valid("param").file);
    const object = key ? await c.env.THUMBNAILS.get(key) : null;
    if (!object) return c.json(errorBody("NOT_FOUND", "No such thumbnail."), 404);
    // Keys are content-addressed by resource and size, so the bytes never change: cache for a year.
    return new Response(object.body, {
      headers: { "content-type": "image/webp", "cache-control": "public, max-age=31536000, immutable", etag: object.httpEtag },
    }) as never;
  });

  app.get("/health", (c) => c.json({ status: "ok" }));

  app.openAPIRegistry.registerWebhook(completionWebhook);
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Media URL Inspection API",
      version: "1.0.0",
      description: "Inspects an http(s) URL without downloading it: type, playback, metadata, previews, provider data.",
    },
  });
  // Swagger UI assets are served from /vendor by Workers Static Assets, so the page works offline.
  app.get("/api-docs", swaggerUI({ url: "/openapi.json", baseUrl: "/vendor", title: "Media URL Inspection API" } as never));

  app.notFound(notFound);
  app.onError(onError);
  return app;
}
