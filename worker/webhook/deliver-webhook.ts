import type { Config } from "../config/config.ts";
import { ApiError } from "../errors/api-error.ts";
import { fetchPolicy, safeFetch } from "../fetch/index.ts";
import { signWebhook } from "./signature.ts";
import type { WebhookEvent } from "../../shared/schemas/webhook.ts";

export type DeliveryResult = { ok: true } | { ok: false; error: string; permanent: boolean };

/** One signed POST of the event, through the SSRF-checked fetcher; redirects are not followed. */
export async function deliverWebhook(config: Config, url: string, messageId: string, event: WebhookEvent): Promise<DeliveryResult> {
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = await signWebhook(config.WEBHOOK_SECRET, messageId, timestamp, body);
  try {
    const { response } = await safeFetch(
      url,
      {
        method: "POST",
        body,
        followRedirects: false,
        headers: {
          "content-type": "application/json",
          "webhook-id": messageId,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signature,
        },
      },
      fetchPolicy(config),
    );
    await response.body?.cancel();
    if (response.status >= 200 && response.status < 300) return { ok: true };
    // A 4xx is the receiver refusing this event: sending it again would only repeat the POST.
    const permanent = response.status >= 400 && response.status < 500;
    return { ok: false, error: `receiver answered ${response.status}`, permanent };
  } catch (err) {
    // An address that became denied will stay denied: stop retrying.
    if (err instanceof ApiError && err.code === "SSRF_BLOCKED") return { ok: false, error: err.publicMessage, permanent: true };
    return { ok: false, error: err instanceof ApiError ? err.publicMessage : String(err), permanent: false };
  }
}
