/**
 * Complete records served without reaching the resource's Durable Object: an in-isolate LRU (no I/O at all)
 * in front of the Workers Cache API (`caches.default`, per data centre). Both hold the canonical record of a
 * normalised URL, not a projected body, so every caller's own projection (profile, fields, expand, debug)
 * and own `identity.url` are applied per request and no caller sees another's URL. Only complete records
 * are stored (a partial one changes as stages finish), each until the record's own expiry.
 */
import { ResourceRecord } from "../../shared/schemas/record.ts";

/** Records kept in the isolate; a record's JSON is a few KiB, so this stays well under a MiB or two. */
const memoryEntries = 256;
const memory = new Map<string, ResourceRecord>();

/** Cache API keys are URLs; this host is never fetched. */
const cacheKey = (key: string) => new Request(`https://edge-cache.media-inspect.invalid/v1/record/${key}`);

function remember(key: string, record: ResourceRecord): void {
  memory.delete(key);
  memory.set(key, record);
  if (memory.size > memoryEntries) memory.delete(memory.keys().next().value!);
}

function defaultCache(): Cache | undefined {
  return typeof caches === "undefined" ? undefined : (caches as unknown as { default?: Cache }).default;
}

/** A complete, unexpired record for the resource key, or undefined. */
export async function cachedRecord(key: string, now = Date.now()): Promise<ResourceRecord | undefined> {
  const hit = memory.get(key);
  if (hit) {
    if (hit.expiresAt > now) return hit;
    memory.delete(key);
  }
  const response = await defaultCache()?.match(cacheKey(key)).catch(() => undefined);
  if (!response) return undefined;
  const parsed = ResourceRecord.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success || parsed.data.expiresAt <= now) return undefined;
  remember(key, parsed.data);
  return parsed.data;
}

/** Stores a record if it is complete; the TTL is what is left of the record's own. */
export async function storeRecord(key: string, record: ResourceRecord, complete: boolean, now = Date.now()): Promise<void> {
  if (!complete) return;
  const ttlSeconds = Math.floor((record.expiresAt - now) / 1000);
  if (ttlSeconds <= 0) return;
  remember(key, record);
  const response = new Response(JSON.stringify(record), {
    headers: { "content-type": "application/json", "cache-control": `public, max-age=${ttlSeconds}` },
  });
  await defaultCache()?.put(cacheKey(key), response).catch(() => {});
}

/** Forgets a key in this isolate and this data centre (tests that age a record behind the object's back). */
export async function dropCachedRecord(key: string): Promise<void> {
  memory.delete(key);
  await defaultCache()?.delete(cacheKey(key)).catch(() => false);
}
