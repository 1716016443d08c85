/**
 * The door of http/'s Idempotency-Key middleware to the key objects (worker/idempotency): one caller's key is
 * one IdempotencyObject, named by a digest of the caller's address and the key.
 */
import { sha256Hex } from "../encoding/sha256.ts";
import type { IdempotencyClaim, IdempotentAnswer } from "../idempotency/idempotency-store.ts";

export type { IdempotencyClaim, IdempotentAnswer };

/**
 * The Durable Object name of one caller's key: a SHA-256 of the JSON array [address, key]. JSON quotes and
 * escapes each string, so the encoding is unambiguous (no separator a value could contain).
 */
export async function idempotencySlot(address: string, key: string): Promise<string> {
  return `idempotency:${await sha256Hex(JSON.stringify([address, key]))}`;
}

/** One key's object, typed by its class (wrangler types), so replies need no casts. */
function keyObject(env: Env, slot: string) {
  return env.IDEMPOTENCY.get(env.IDEMPOTENCY.idFromName(slot));
}

/** Claims `slot` for a request's fingerprint for `leaseMs`: new, replay, pending (in use) or conflict. */
export async function claimKey(env: Env, slot: string, fingerprint: string, leaseMs: number): Promise<IdempotencyClaim> {
  return await keyObject(env, slot).claim(fingerprint, leaseMs);
}

/** The claimed request's answer, kept `ttlMs`; undefined releases the key. */
export async function completeKey(env: Env, slot: string, fingerprint: string, answer: IdempotentAnswer | undefined, ttlMs: number): Promise<void> {
  await keyObject(env, slot).complete(fingerprint, answer, ttlMs);
}
