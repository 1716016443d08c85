import { z } from "zod";
import { InspectResponse } from "./inspect.ts";

export const webhookEventTypes = ["inspection.completed"] as const;

/**
 * Body of a webhook delivery (Standard Webhooks layout: type, timestamp, data). Sent once per inspection that
 * named a `webhookUrl`, when every stage of the resource is done. Headers: webhook-id, webhook-timestamp,
 * webhook-signature (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`).
 */
export const WebhookEvent = z.object({
  type: z.enum(webhookEventTypes),
  timestamp: z.string().meta({ description: "ISO 8601 time the event was created" }),
  data: z.object({
    jobId: z.string(),
    url: z.string(),
    status: z.enum(["completed", "failed"]),
    result: InspectResponse.optional().meta({ description: "The standard-profile inspection result" }),
  }),
}).meta({ id: "WebhookEvent" });
export type WebhookEvent = z.infer<typeof WebhookEvent>;
