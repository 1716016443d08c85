// Issue 14 item 5: an origin error the resource object remembers (ERROR_TTL_SECONDS) is answered at the edge
// for what is left of the object's TTL, without reaching the Durable Object or the origin again.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { normalizeUrl, resourceKey } from "../../../worker/record/target-url.ts";
import { cachedAnswer, dropCachedRecord, forgetInIsolate, storeError } from "../../../worker/service/edge-cache.ts";
import { RecordStore } from "../../../worker/object/record-store.ts";
import { inspect, origin, originStats } from "../../../testkit/worker/helpers.ts";

const errorTtlSeconds = 60; // the shipped ERROR_TTL_SECONDS default, applied to one object at a time below

const resources = (env as unknown as { RESOURCE: DurableObjectNamespace }).RESOURCE;
const objectFor = (url: string) => resources.get(resources.idFromName(normalizeUrl(new URL(url))));
const keyFor = async (url: string) => resourceKey(normalizeUrl(new URL(url)));

async function originRequests(nonce: string): Promise<number> {
  return (await originStats()).requests.filter((r) => new URL(r.path, origin).searchParams.get("n") === nonce).length;
}

/**
 * Gives one object the shipped error TTL (tests run with 0) and counts the calls that reach it: every inspect
 * the object answers without a record asks for its remembered error first.
 */
async function watchObject(url: string, ttlSeconds: number): Promise<() => Promise<number>> {
  await runInDurableObject(objectFor(url), (instance) => {
    Object.defineProperty(instance, "env", { value: { ...env, ERROR_TTL_SECONDS: String(ttlSeconds) } });
    const object = instance as unknown as { rooms: { source: { originError: { current(now: number): unknown } } }; reached: number };
    const memory = object.rooms.source.originError;
    const remembered = memory.current.bind(memory);
    object.reached = 0;
    memory.current = (now: number) => {
      object.reached += 1;
      return remembered(now);
    };
  });
  return () => runInDurableObject(objectFor(url), (instance) => (instance as unknown as { reached: number }).reached);
}

type ObjectError = { status: number; code: string; message: string; expiresAt: number } | undefined;

/** The error the object answers with now (memory first, as the object reads it). */
const objectError = (url: string) =>
  runInDurableObject(objectFor(url), (instance) =>
    (instance as unknown as { rooms: { source: { originError: { current(now: number): ObjectError } } } }).rooms.source.originError.current(Date.now()));

/** Tables the object's own code created (workerd's internal `_cf_` tables aside). */
const ownTables = (url: string) =>
  runInDurableObject(objectFor(url), (_instance, state) =>
    state.storage.sql.exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'`).toArray().map((r) => r.name));

describe("remembered origin errors at the edge", () => {
  it("a retried 502 is answered at the edge, same status and envelope, neither object nor origin reached again", async () => {
    const nonce = crypto.randomUUID().slice(0, 8);
    const url = `${origin}/status/503?n=${nonce}`;
    const reached = await watchObject(url, errorTtlSeconds);
    const first = await inspect(url);
    expect(first.status).toBe(502);
    expect(first.body).toMatchObject({ status: "error", error: { code: "BAD_GATEWAY" } });
    const afterFirst = await reached();
    expect(afterFirst).toBeGreaterThan(0);
    expect(await originRequests(nonce)).toBe(1);

    for (let i = 0; i < 3; i++) {
      const again = await inspect(url, i === 1 ? "profile=full" : "");
      expect(again.status).toBe(502);
      expect(again.body).toEqual(first.body);
    }
    expect(await reached()).toBe(afterFirst);
    expect(await originRequests(nonce)).toBe(1);
  });

  it("the edge keeps the error exactly as long as the object does (what is left of its TTL)", async () => {
    const url = `${origin}/status/404?n=${crypto.randomUUID().slice(0, 8)}`;
    await watchObject(url, errorTtlSeconds);
    expect((await inspect(url)).status).toBe(404);
    const stored = await objectError(url);
    expect(stored).toMatchObject({ status: 404, code: "RESOURCE_NOT_FOUND" });
    const key = await keyFor(url);
    const edge = await cachedAnswer(key);
    expect(edge?.error).toEqual(stored);
    // Until the object's expiry, not past it.
    expect((await cachedAnswer(key, stored!.expiresAt - 1))?.error?.code).toBe("RESOURCE_NOT_FOUND");
    expect(await cachedAnswer(key, stored!.expiresAt)).toBeUndefined();
  });

  it("a first failure stays in the isolate; once the object answers it as remembered, the data centre's cache shares it", async () => {
    const url = `${origin}/status/503?n=${crypto.randomUUID().slice(0, 8)}`;
    const reached = await watchObject(url, errorTtlSeconds);
    const key = await keyFor(url);
    expect((await inspect(url)).status).toBe(502);
    const once = await reached();
    forgetInIsolate(key); // as another isolate would see it: nothing shared yet (no write for a URL asked once)
    expect(await cachedAnswer(key)).toBeUndefined();
    expect((await inspect(url)).status).toBe(502); // this isolate no longer knows it: the object answers, as remembered
    expect(await reached()).toBeGreaterThan(once);
    forgetInIsolate(key);
    const shared = await cachedAnswer(key); // now from the Cache API
    const stored = await runInDurableObject(objectFor(url), (_instance, state) => new RecordStore(state.storage.sql).loadError(Date.now()));
    expect(shared?.error).toEqual(stored);
  });

  it("a new object whose first inspection fails writes nothing; the error is written once it is asked again", async () => {
    const url = `${origin}/status/503?n=${crypto.randomUUID().slice(0, 8)}`;
    await watchObject(url, errorTtlSeconds);
    expect((await inspect(url)).status).toBe(502);
    expect(await ownTables(url)).toEqual([]);
    forgetInIsolate(await keyFor(url));
    expect((await inspect(url)).status).toBe(502);
    expect((await ownTables(url)).sort()).toEqual(["origin_error", "resource"]);
    const stored = await runInDurableObject(objectFor(url), (_instance, state) => new RecordStore(state.storage.sql).loadError(Date.now()));
    expect(stored).toEqual(await objectError(url));
  });

  it("a written error row is deleted by the object's alarm at its expiry", async () => {
    const url = `${origin}/status/503?n=${crypto.randomUUID().slice(0, 8)}`;
    await watchObject(url, errorTtlSeconds);
    expect((await inspect(url)).status).toBe(502);
    forgetInIsolate(await keyFor(url));
    expect((await inspect(url)).status).toBe(502);
    const error = await objectError(url);
    const alarmAt = await runInDurableObject(objectFor(url), (_instance, state) => state.storage.getAlarm());
    expect(alarmAt).toBe(error!.expiresAt);
    const rows = () => runInDurableObject(objectFor(url), (_instance, state) =>
      state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM origin_error`).one().n);
    expect(await rows()).toBe(1);
    // Time passes: the row and the object's memory of it expire, then the alarm runs.
    await runInDurableObject(objectFor(url), (instance, state) => {
      state.storage.sql.exec(`UPDATE origin_error SET expires_at = ?`, Date.now() - 1);
      (instance as unknown as { rooms: { source: { originError: { entry?: { error: { expiresAt: number } } } } } }).rooms.source.originError.entry!.error.expiresAt = Date.now() - 1;
    });
    expect(await runDurableObjectAlarm(objectFor(url))).toBe(true);
    expect(await rows()).toBe(0);
  });

  it("once the edge entry is gone and the object's error has expired, the origin is asked again", async () => {
    const nonce = crypto.randomUUID().slice(0, 8);
    const url = `${origin}/status/503?n=${nonce}`;
    await watchObject(url, errorTtlSeconds);
    expect((await inspect(url)).status).toBe(502);
    await runInDurableObject(objectFor(url), (instance) => {
      (instance as unknown as { rooms: { source: { originError: { entry?: { error: { expiresAt: number } } } } } }).rooms.source.originError.entry!.error.expiresAt = Date.now() - 1;
    });
    await dropCachedRecord(await keyFor(url));
    expect((await inspect(url)).status).toBe(502);
    expect(await originRequests(nonce)).toBe(2);
  });

  it("an error the object does not remember (ERROR_TTL_SECONDS=0) is not kept at the edge", async () => {
    const nonce = crypto.randomUUID().slice(0, 8);
    const url = `${origin}/status/404?n=${nonce}`;
    const reached = await watchObject(url, 0);
    expect((await inspect(url)).status).toBe(404);
    const once = await reached();
    expect((await inspect(url)).status).toBe(404);
    expect(await reached()).toBeGreaterThan(once);
    expect(await originRequests(nonce)).toBe(2);
    expect(await cachedAnswer(await keyFor(url))).toBeUndefined();
  });

  it("the caller's own 400 is never remembered: the same URL with valid parameters is inspected", async () => {
    const nonce = crypto.randomUUID().slice(0, 8);
    const url = `${origin}/media/png-opaque.png?n=${nonce}`;
    await watchObject(url, errorTtlSeconds);
    const bad = await inspect(url, "expand=rawHeaders");
    expect(bad.status).toBe(400);
    expect(await cachedAnswer(await keyFor(url))).toBeUndefined();
    expect((await inspect(url)).status).toBe(200);
  });

  it("the remembered error names no caller's URL: another spelling of the URL gets the same body", async () => {
    const nonce = crypto.randomUUID().slice(0, 8);
    const url = `${origin}/status/503?n=${nonce}`;
    await watchObject(url, errorTtlSeconds);
    const first = await inspect(`${url}#caller-a-secret`);
    const second = await inspect(`${url}&utm_source=caller-b#caller-b-secret`);
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
    expect(JSON.stringify(second.body)).not.toContain("caller-a");
    expect(await originRequests(nonce)).toBe(1);
  });

  it("storeError ignores an already expired error", async () => {
    const key = `test-${crypto.randomUUID()}`;
    await storeError(key, { status: 502, code: "BAD_GATEWAY", message: "gone", expiresAt: Date.now() - 1 }, true);
    expect(await cachedAnswer(key)).toBeUndefined();
  });
});
