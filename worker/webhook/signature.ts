import { base64ToBytes, bytesToBase64 } from "../encoding/base64.ts";

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

/** Shortest key accepted: Standard Webhooks asks for 24 to 64 random bytes. */
export const minWebhookSecretBytes = 24;

const secretPrefix = "whsec_";
/** Standard base64 with padding only at the end (a linear pattern: no nested quantifiers). */
const base64Pattern = /^[A-Za-z0-9+/]+={0,2}$/;

export function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const raw = secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret;
  return base64ToBytes(raw);
}

/** Why a secret is unusable (not base64, or too short once decoded), or undefined when it is fine. */
export function webhookSecretProblem(secret: string): string | undefined {
  const raw = secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret;
  const expected = `expected whsec_ followed by the base64 of at least ${minWebhookSecretBytes} random bytes (e.g. "whsec_" + \`openssl rand -base64 32\`)`;
  if (!base64Pattern.test(raw)) return `not base64; ${expected}`;
  let bytes: Uint8Array;
  try {
    bytes = base64ToBytes(raw);
  } catch {
    return `not base64; ${expected}`;
  }
  if (bytes.length < minWebhookSecretBytes) return `decodes to ${bytes.length} bytes; ${expected}`;
  return undefined;
}
