/** The routes the API declares (OpenAPI via zod), one module per group under routes/. */
export { batchRoute, BatchResponse, inspectByQueryRoute, inspectRoute, jobRoute } from "./routes/inspect-routes.ts";
export { storyboardRoute, thumbnailRoute, waveformDataRoute } from "./routes/preview-routes.ts";
export { oembedRoute, shareByIdRoute, shareCardRoute, sharePageRoute } from "./routes/sharing-routes.ts";
export { completionWebhook } from "./routes/webhook-routes.ts";
