/**
 * Idempotency-Key on POST /api/v1/inspect and the batch (as Stripe's): the same key with the
 * same request within 24 h answers the first answer again (`Idempotent-Replayed: true`) and registers nothing
 * new; the same key with a different request is 422. A request arriving while the first with its key is still
 * running is 409 IDEMPOTENCY_KEY_IN_USE with Retry-After (Stripe's answer to concurrent use, and the IETF
 * Idempotency-Key draft's): it starts no second inspection and registers no second webhook, and its retry gets
 * the first answer. Keys are per client; each lives in its own IdempotencyObject (worker/idempotency), reached through service/.
 *
 * Only answers the service finished are kept (Stripe's rule): a 429, a 408 or any 5xx says "try again later",
 * so it releases the key and the retry is a new request. A key belongs to one caller: its slot is a digest of
 * the caller's address and the key as one structured value, so no two (caller, key) pairs share a slot; a
 * caller the service cannot identify (CLIENT_IP_SOURCE, client-identity.ts) has no slot at all, and its key is
 * ignored (the request runs as if sent without one; a repeated webhook registration still joins its job).
 */
import type { MiddlewareHandler } from "hono";
import { errors } from "../errors/api-error.ts";
import type { AppEnv } from "./app-env.ts";
import { clientAddressOf } from "./client-identity.ts";
import { claimKey, completeKey, idempotencySlot } from "../service/idempotency-keys.ts";
import { sha256Hex } from "../encoding/sha256.ts";

/** How long a key is remembered. */
export const idempotencyTtlSeconds = 24 * 60 * 60;
/**
 * How long a first request holds its key before answering: longer than any inspection takes (a `full` wait of
 * FULL_WAIT_TIMEOUT_MS after a probe bounded by FETCH_TIMEOUT_MS). A request whose Worker died releases its key then.
 */
export const idempotencyLeaseSeconds = 60;
/** Retry-After of a 409 for a key in use: the first answer is usually ready within a second or two. */
export const keyInUseRetryAfterSeconds = 1;
/** Longest key accepted (Stripe's limit). */
export const maxIdempotencyKeyLength = 255;
/** Answers larger than this are not kept: a retry is inspected again (the job join still prevents a second webhook). */
export const maxIdempotentAnswerBytes = 256 * 1024;
/** Headers of the first answer that a replay repeats. */
const replayedHeaders = ["content-type", "location", "retry-after", "etag", "cache-control"];

function validKey(key: string): boolean {
  if (key.length === 0 || key.length > maxIdempotencyKeyLength) return false;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) return false;
  }
  return true;
}

/** Whether an answer is final for its request: not a "try again later" (408, 429) and not our own failure (5xx). */
export function replayable(status: number): boolean {
  return status < 500 && status !== 429 && status !== 408;
}

export const idempotency: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return next();
  if (!validKey(key)) throw errors.invalidParameter(`Idempotency-Key must be 1 to ${maxIdempotencyKeyLength} printable ASCII characters.`);
  const address = clientAddressOf(c.req.raw, c.env);
  if (address === undefined) return next();
  // The request as sent: path, query and body (the body limit has already bounded it).
  const url = new URL(c.req.url);
  const fingerprint = await sha256Hex(`${c.req.method} ${url.pathname}?${url.searchParams}\n${await c.req.raw.clone().text()}`);
  const slot = await idempotencySlot(address, key);
  const claim = await claimKey(c.env, slot, fingerprint, idempotencyLeaseSeconds * 1000);
  if (claim.state === "conflict") throw errors.idempotencyKeyReused();
  if (claim.state === "pending") throw errors.idempotencyKeyInUse(keyInUseRetryAfterSeconds);
  if (claim.state === "replay") {
    const headers = new Headers(claim.answer.headers);
    headers.set("idempotent-replayed", "true");
    return new Response(claim.answer.body, { status: claim.answer.status, headers });
  }
  await next();
  const status = c.res.status;
  const body = replayable(status) ? await c.res.clone().text() : "";
  const keep = replayable(status) && body.length <= maxIdempotentAnswerBytes;
  const headers: Record<string, string> = {};
  for (const name of replayedHeaders) {
    const value = c.res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  await completeKey(c.env, slot, fingerprint, keep ? { status, headers, body } : undefined, idempotencyTtlSeconds * 1000);
};
