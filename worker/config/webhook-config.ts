import { z } from "zod";
import { int } from "./setting.ts";
import { webhookSecretProblem } from "./webhook-secret.ts";

/** Settings of `webhook/`: the signing secret and the retry schedule of deliveries. */
export const WebhookConfigSchema = z.object({
  /**
   * Secret for webhook signatures (Standard Webhooks: `whsec_` + base64 key of at least 24 bytes). Webhooks are
   * refused while unset; `npm start` generates one in local mode.
   */
  WEBHOOK_SECRET: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      const problem = v === undefined ? undefined : webhookSecretProblem(v);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .transform((v) => v ?? ""),
  /** Webhook delivery attempts before giving up. Default 8. */
  WEBHOOK_MAX_ATTEMPTS: int(8),
  /** First webhook retry delay; doubles each attempt (1 s, 2 s, 4 s, ...). Default 1 s. */
  WEBHOOK_RETRY_BASE_MS: int(1_000),
});
export type WebhookConfig = z.infer<typeof WebhookConfigSchema>;
