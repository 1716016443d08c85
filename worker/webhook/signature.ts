import { bytesToBase64 } from "../encoding/base64.ts";
import { secretBytes } from "../config/webhook-secret.ts";

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the signed content is
 * `${webhook-id}.${webhook-timestamp}.${body}`, HMAC-SHA256 with the secret's bytes (base64 after `whsec_`),
 * sent as `webhook-signature: v1,<base64>`. Receivers verify with the ecosystem's libraries (`standardwebhooks`, svix).
 */
export async function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): Promise<string> {
  const keyBytes = secretBytes(secret);
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`));
  return `v1,${bytesToBase64(new Uint8Array(mac))}`;
}
