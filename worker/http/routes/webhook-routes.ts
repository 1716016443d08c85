/** The webhook the API documents: the signed completion call a `webhookUrl` receives. */
import { z } from "@hono/zod-openapi";
import { WebhookEvent } from "../../../shared/schemas/webhook.ts";

/** Documented under `webhooks` (OpenAPI 3.1): what a `webhookUrl` receives. */
export const completionWebhook = {
  method: "post" as const,
  path: "inspection.completed",
  operationId: "inspectionCompleted",
  tags: ["Webhooks"],
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
