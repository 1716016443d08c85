import { base64ToBytes } from "../encoding/base64.ts";

/**
 * The webhook signing secret's format (Standard Webhooks: `whsec_` + base64 of the key bytes), checked when
 * the config is read and decoded when a delivery is signed.
 */

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
