/**
 * Answers served without reaching the resource's Durable Object: an in-isolate LRU (no I/O at all) in front
 * of the Workers Cache API (`caches.default`, per data centre). One Cache API entry per normalised URL holds
 * either of:
 *
 * - a complete record: the canonical record, not a projected body, so every caller's own projection
 *   (profile, fields, expand, debug) and own `identity.url` are applied per request and no caller sees
 *   another's URL. Only complete records are stored (a partial one changes as stages finish), each until the
 *   record's own expiry;
 * - a remembered origin error: an error the resource object remembers for
 *   ERROR_TTL_SECONDS, kept here until the object's own expiry of it, so a caller retrying a failing URL is
 *   answered as cheaply as a cached record instead of by a Durable Object call every time. Only what the
 *   object chose to remember is stored (origin errors, never the caller's own 400s), as its public status,
 *   code and message, which name at most the host of this very normalised URL.
 *
 * The two never live side by side for long: the object answers its remembered error until it expires and
 * clears it on the next success, whose record then replaces the entry.
 */
import { z } from "zod";
import { ResourceRecord } from "../../shared/schemas/record.ts";
import { ErrorReason } from "../../shared/schemas/error.ts";

/** An origin error as the resource object remembers it: public fields and when the object forgets it. */
export const RememberedError = z.object({
  status: z.number().int().min(400).max(599),
  code: z.string(),
  message: z.string(),
  expiresAt: z.number(),
  reason: ErrorReason.optional(),
  upstreamStatus: z.number().int().optional(),
  retryAfter: z.number().int().min(0).optional(),
});
export type RememberedError = z.infer<typeof RememberedError>;

export type CachedAnswer = { record: ResourceRecord; error?: undefined } | { error: RememberedError; record?: undefined };

/** Records kept in the isolate; a record's JSON is a few KiB, so this stays well under a MiB or two. */
const memoryEntries = 256;
/** Errors kept in the isolate (a few hundred bytes each), in their own map so failing URLs never evict good records. */
const errorMemoryEntries = 1_024;
const records = new Map<string, ResourceRecord>();
const errors = new Map<string, RememberedError>();

/** Cache API keys are URLs; this host is never fetched. v2: the entry is a record or `{ rememberedError }`. */
const cacheKey = (key: string) => new Request(`https://edge-cache.media-inspect.invalid/v2/answer/${key}`);
const StoredError = z.object({ rememberedError: RememberedError });

function remember<T>(map: Map<string, T>, limit: number, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value!);
}

/** The unexpired entry of `map` for `key`; an expired one is dropped. */
function fresh<T extends { expiresAt: number }>(map: Map<string, T>, key: string, now: number): T | undefined {
  const hit = map.get(key);
  if (hit && hit.expiresAt <= now) map.delete(key);
  return hit && hit.expiresAt > now ? hit : undefined;
}

function defaultCache(): Cache | undefined {
  if (typeof caches === "undefined") return undefined;
  // The Workers runtime's CacheStorage adds `default` (this data centre's cache) to the web's, whose type the
  // WebWorker lib also declares without it; the annotation states what the runtime holds without asserting.
  const storage: Pick<CacheStorage, "open"> & { readonly default?: Cache } = caches;
  return storage.default;
}

/** A complete, unexpired record or a remembered, unexpired origin error for the resource key. */
export async function cachedAnswer(key: string, now = Date.now()): Promise<CachedAnswer | undefined> {
  const record = fresh(records, key, now);
  if (record) return { record };
  const error = fresh(errors, key, now);
  if (error) return { error };
  const response = await defaultCache()?.match(cacheKey(key)).catch(() => undefined);
  if (!response) return undefined;
  const json: unknown = await response.json().catch(() => undefined);
  const asError = StoredError.safeParse(json);
  if (asError.success) {
    if (asError.data.rememberedError.expiresAt <= now) return undefined;
    remember(errors, errorMemoryEntries, key, asError.data.rememberedError);
    return { error: asError.data.rememberedError };
  }
  const parsed = ResourceRecord.safeParse(json);
  if (!parsed.success || parsed.data.expiresAt <= now) return undefined;
  remember(records, memoryEntries, key, parsed.data);
  return { record: parsed.data };
}

/** A complete, unexpired record for the resource key, or undefined. */
export async function cachedRecord(key: string, now = Date.now()): Promise<ResourceRecord | undefined> {
  return (await cachedAnswer(key, now))?.record;
}

async function put(key: string, body: unknown, expiresAt: number, now: number): Promise<void> {
  const ttlSeconds = Math.floor((expiresAt - now) / 1000);
  if (ttlSeconds <= 0) return;
  const response = new Response(JSON.stringify(body), {
    headers: { "content-type": "application/json", "cache-control": `public, max-age=${ttlSeconds}` },
  });
  await defaultCache()?.put(cacheKey(key), response).catch(() => {});
}

/** Stores a record if it is complete; the TTL is what is left of the record's own. */
export async function storeRecord(key: string, record: ResourceRecord, complete: boolean, now = Date.now()): Promise<void> {
  if (!complete || record.expiresAt <= now) return;
  errors.delete(key);
  remember(records, memoryEntries, key, record);
  await put(key, record, record.expiresAt, now);
}

/**
 * Stores an origin error the resource object remembers; the TTL is what is left of the object's own. Always
 * in this isolate (no I/O); in the data centre's Cache API only when `shared`: a write per failing URL would
 * cost more than it saves for URLs asked once (a stream of new failing URLs), so the caller shares only
 * errors the object had remembered before, i.e. URLs that callers retry.
 */
export async function storeError(key: string, error: RememberedError, shared: boolean, now = Date.now()): Promise<void> {
  if (error.expiresAt <= now) return;
  records.delete(key);
  remember(errors, errorMemoryEntries, key, error);
  if (shared) await put(key, { rememberedError: error }, error.expiresAt, now);
}

/** Forgets a key in this isolate and this data centre (tests that age state behind the object's back). */
export async function dropCachedRecord(key: string): Promise<void> {
  records.delete(key);
  errors.delete(key);
  await defaultCache()?.delete(cacheKey(key)).catch(() => false);
}

/** Forgets a key in this isolate only, as a new isolate would not know it (tests). */
export function forgetInIsolate(key: string): void {
  records.delete(key);
  errors.delete(key);
}
