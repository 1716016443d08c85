// Issue 3, the resource's Durable Object state: record TTL in SQLite, brief caching of origin errors, the
// cleanup alarm, and stages that fail ending complete. Storage is read and aged with runInDurableObject.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { normalizeUrl, resourceKey } from "../../../worker/record/target-url.ts";
import { dropCachedRecord, forgetInIsolate } from "../../../worker/service/edge-cache.ts";
import { RecordStore } from "../../../worker/object/record-store.ts";
import { OriginErrorMemory } from "../../../worker/object/origin-error-memory.ts";
import { inspect, media, origin, originStats } from "../../../testkit/worker/helpers.ts";

const defaultRecordTtlSeconds = 86_400; // worker/config/config.ts RECORD_TTL_SECONDS (not overridden in tests)
const shortErrorTtlSeconds = 60; // the shipped ERROR_TTL_SECONDS default, applied to one object below
const previewStages = ["preview:thumbnail", "preview:blurhash", "preview:palette"];

const resources = (env as unknown as { RESOURCE: DurableObjectNamespace }).RESOURCE;
const objectFor = (url: string) => resources.get(resources.idFromName(normalizeUrl(new URL(url))));

async function requestsFor(url: string) {
  const nonce = new URL(url).searchParams.get("n")!;
  return (await originStats()).requests.filter((r) => new URL(r.path, origin).searchParams.get("n") === nonce);
}

/** The stored row as SQLite holds it. */
function storedRow(url: string) {
  return runInDurableObject(objectFor(url), (_instance, state) =>
    state.storage.sql.exec<{ record: string; expires_at: number }>(`SELECT record, expires_at FROM resource`).toArray()[0]);
}

/**
 * Ages the stored row and drops the object's in-memory copy, as an eviction would: the object then reads
 * the aged row on its next call (it loads the record once per lifetime).
 */
async function ageRecord(url: string, expiresAt: number) {
  await runInDurableObject(objectFor(url), (instance, state) => {
    state.storage.sql.exec(`UPDATE resource SET expires_at = ?`, expiresAt);
    (instance as unknown as { rooms: { source: { memory?: unknown } } }).rooms.source.memory = undefined;
  });
  // The edge cache holds the record until its original expiry; time did not really pass, so drop it too.
  await dropCachedRecord(await resourceKey(normalizeUrl(new URL(url))));
}

describe("record TTL", () => {
  it("stores the record in SQLite with the configured TTL", async () => {
    const url = media("png-opaque.png");
    const before = Date.now();
    await inspect(url);
    const row = await storedRow(url);
    expect(row).toBeDefined();
    const record = JSON.parse(row!.record);
    expect(record.normalizedUrl).toBe(url);
    expect(record.expiresAt).toBe(row!.expires_at);
    expect(row!.expires_at - record.createdAt).toBe(defaultRecordTtlSeconds * 1000);
    expect(record.createdAt).toBeGreaterThanOrEqual(before);
    // Finished stages are stored with their engine, so the record itself says who produced what.
    for (const stage of previewStages) expect(record.stages[stage]).toMatchObject({ state: "done", engine: "edge" });
  });

  it("a record past expiresAt is not served: the next inspection probes the origin again", async () => {
    const url = media("jpeg-rgb.jpg");
    await inspect(url);
    expect((await inspect(url)).body.responseSource).toBe("cache");
    const seen = (await requestsFor(url)).length;

    await ageRecord(url, Date.now() - 1);
    const again = await inspect(url);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ responseSource: "fresh", cached: false });
    expect(again.body.processing.status).toBe("complete");
    const after = await requestsFor(url);
    expect(after.length).toBeGreaterThan(seen);
    expect(after[seen]!.range).toMatch(/^bytes=0-/); // a new probe, not only a download
    // The new record carries a new lifetime.
    expect((await storedRow(url))!.expires_at).toBeGreaterThan(Date.now() + (defaultRecordTtlSeconds - 60) * 1000);
  });

  it("the cleanup alarm deletes an expired record", async () => {
    const url = media("webp-lossy.webp");
    await inspect(url);
    // The object scheduled its own cleanup for the record's expiry; age the record, then run that alarm now.
    const [alarm, expiresAt] = await runInDurableObject(objectFor(url), async (_instance, state) =>
      [await state.storage.getAlarm(), new RecordStore(state.storage.sql).nextExpiry()]);
    expect(alarm).toBe(expiresAt);
    await ageRecord(url, Date.now() - 1);
    expect(await runDurableObjectAlarm(objectFor(url))).toBe(true);
    expect(await storedRow(url)).toBeUndefined();
  });

  it("RecordStore never returns a record at or past its expiry", async () => {
    const url = media("gif-opaque.gif");
    await inspect(url);
    await runInDurableObject(objectFor(url), (_instance, state) => {
      const store = new RecordStore(state.storage.sql);
      const record = store.loadRecord(Date.now())!;
      expect(record).toBeDefined();
      expect(store.loadRecord(record.expiresAt - 1)?.key).toBe(record.key);
      expect(store.loadRecord(record.expiresAt)).toBeUndefined();
      expect(store.nextExpiry()).toBe(record.expiresAt);
    });
  });
});

describe("origin errors are cached briefly, not for the record TTL", () => {
  it("with the test setting ERROR_TTL_SECONDS=0 an origin 404 is asked again every time", async () => {
    const url = `${origin}/status/404?n=${crypto.randomUUID().slice(0, 8)}`;
    expect((await inspect(url)).status).toBe(404);
    expect((await inspect(url)).status).toBe(404);
    expect(await requestsFor(url)).toHaveLength(2);
  });

  it("with ERROR_TTL_SECONDS=60 on the object, a 502 is answered from the error cache for 60 s, then asked again", async () => {
    const url = `${origin}/status/503?n=${crypto.randomUUID().slice(0, 8)}`;
    // Per-object configuration: the object reads its settings from `this.env` on each call, so giving this
    // one instance the shipped default exercises the real rememberError path without touching other tests.
    await runInDurableObject(objectFor(url), (instance) => {
      Object.defineProperty(instance, "env", { value: { ...env, ERROR_TTL_SECONDS: String(shortErrorTtlSeconds) } });
    });
    const before = Date.now();
    const first = await inspect(url);
    expect(first.status).toBe(502);
    expect(first.body.error.code).toBe("BAD_GATEWAY");
    expect(await requestsFor(url)).toHaveLength(1);

    const loadError = () => runInDurableObject(objectFor(url), (_instance, state) => new RecordStore(state.storage.sql).loadError(Date.now()));
    // A first failure is kept in the object's memory only: nothing is written for a URL asked once.
    expect(await loadError()).toBeUndefined();

    const second = await inspect(url);
    expect(second.status).toBe(502);
    expect(second.body).toEqual(first.body);
    expect(await requestsFor(url)).toHaveLength(1);
    // Asked again through an isolate that does not know it: the object answers it as remembered and writes it.
    forgetInIsolate(await resourceKey(normalizeUrl(new URL(url))));
    expect((await inspect(url)).body).toEqual(first.body);
    expect(await requestsFor(url)).toHaveLength(1);
    const stored = await loadError();
    expect(stored).toMatchObject({ status: 502, code: "BAD_GATEWAY" });
    expect(stored!.expiresAt).toBeGreaterThanOrEqual(before + shortErrorTtlSeconds * 1000);
    expect(stored!.expiresAt).toBeLessThanOrEqual(Date.now() + shortErrorTtlSeconds * 1000);
    // No record was stored for the failure.
    expect(await storedRow(url)).toBeUndefined();

    // Once the error has expired the origin is asked again.
    await runInDurableObject(objectFor(url), (instance, state) => {
      state.storage.sql.exec(`UPDATE origin_error SET expires_at = ?`, Date.now() - 1);
      // As an eviction would: the object's memory of the error starts empty and reads storage again.
      const object = instance as unknown as { rooms: { source: { originError: OriginErrorMemory } }; store: RecordStore };
      object.rooms.source.originError = new OriginErrorMemory(object.store);
    });
    // The edge keeps the error as long as the object did; time did not really pass, so drop it too.
    await dropCachedRecord(await resourceKey(normalizeUrl(new URL(url))));
    expect((await inspect(url)).status).toBe(502);
    expect(await requestsFor(url)).toHaveLength(2);
  });

  it("a success after an error replaces the cached error", async () => {
    const url = media("png-opaque.png");
    await runInDurableObject(objectFor(url), (_instance, state) => {
      new RecordStore(state.storage.sql).saveError({ status: 502, code: "BAD_GATEWAY", message: "earlier failure", expiresAt: Date.now() - 1 });
    });
    expect((await inspect(url)).status).toBe(200);
    const left = await runInDurableObject(objectFor(url), (_instance, state) =>
      state.storage.sql.exec(`SELECT COUNT(*) AS n FROM origin_error`).one().n);
    expect(left).toBe(0);
  });
});

describe("stages that fail end complete", () => {
  it("runner stages whose every attempt fails end as failed: full answers 200 complete", async () => {
    // The runner gate answers 500 for this URL; RUNNER_MAX_ATTEMPTS=3 and RUNNER_RETRY_BASE_SECONDS=1 in tests.
    const url = media("jpeg-cmyk.jpg", "runner=fail");
    const { status, body } = await inspect(url, "profile=full");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.processing).toEqual({
      status: "complete",
      completion: 1,
      enrichmentsPending: false,
      completedStages: ["semantic", "mediaFormat", "metadata:image", "metadata:provenance", ...previewStages],
      pendingStages: [],
      failedStages: previewStages,
    });
    // Failed previews are omitted (no result), never null (which would claim they are still coming).
    expect(body.data.preview).toBeUndefined();
    expect(body.data.metadata.image).toMatchObject({ colorSpace: "cmyk", width: 96, height: 64 });
    const record = JSON.parse((await storedRow(url))!.record);
    for (const stage of previewStages) {
      expect(record.stages[stage]).toMatchObject({ state: "failed", engine: "runner" });
      expect(record.stages[stage].error).toEqual(expect.any(String));
    }
    // Later calls agree and answer 200 from cache.
    const later = await inspect(url);
    expect(later.status).toBe(200);
    expect(later.body.processing).toEqual(body.processing);
  }, 40_000);
});
