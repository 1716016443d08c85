// Issue 25 item 1: inspect answers are cacheable. A complete answer has a strong ETag that does not depend on
// where it was answered from, Cache-Control for the rest of its record's life, Cache-Status (RFC 9211) and Age
// consistent with responseSource; GET with If-None-Match gets 304; partial answers and 202s are never stored.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inspect, media } from "../../../testkit/worker/helpers.ts";
import { freshnessOf } from "../../../worker/http/answer-caching.ts";
import type { ResourceRecord } from "../../../shared/schemas/record.ts";

async function get(url: string, query = "", headers: Record<string, string> = {}) {
  const params = new URLSearchParams(query);
  params.set("url", url);
  const response = await SELF.fetch(`http://service/api/v1/inspect?${params}`, { headers });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

describe("cacheable inspect answers", () => {
  it("a complete answer: strong ETag, Cache-Control with the record's whole life beside its Age, Cache-Status", async () => {
    const url = media("png-opaque.png");
    const fresh = await get(url, "profile=standard");
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.body.responseSource).toBe("fresh");
    const etag = fresh.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const maxAge = Number(/^public, max-age=(\d+), stale-while-revalidate=60$/.exec(fresh.headers.get("cache-control") ?? "")?.[1]);
    // max-age is the record's whole life (RECORD_TTL_SECONDS, 24 h by default), Age what it has used, and the
    // Cache-Status ttl what is left: a cache subtracts Age from max-age (RFC 9111 4.2.3).
    expect(maxAge).toBe(86_400);
    const age = Number(fresh.headers.get("age"));
    const ttl = Number(/^media-inspect; fwd=miss; stored; ttl=(\d+)$/.exec(fresh.headers.get("cache-status") ?? "")?.[1]);
    expect(age).toBeGreaterThanOrEqual(0);
    expect(Math.abs(maxAge - age - ttl)).toBeLessThanOrEqual(1);

    const cached = await get(url, "profile=standard");
    expect(cached.body.responseSource).toBe("cache");
    // The same record through the same query: the same tag, wherever it was answered from.
    expect(cached.headers.get("etag")).toBe(etag);
    expect(cached.headers.get("cache-status")).toMatch(/^media-inspect; hit; ttl=\d+$/);
    expect(Number(cached.headers.get("age"))).toBeGreaterThanOrEqual(0);

    // Another view of the same record is another representation.
    const other = await get(url, "profile=standard&fields=metadata");
    expect(other.headers.get("etag")).not.toBe(etag);
  });

  it("GET with If-None-Match naming the current answer gets 304 with its validators; a stale tag gets 200; POST never 304", async () => {
    const url = media("png-opaque.png");
    const first = await get(url, "profile=standard");
    const etag = first.headers.get("etag")!;
    const revalidated = await get(url, "profile=standard", { "if-none-match": etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe("");
    expect(revalidated.headers.get("etag")).toBe(etag);
    expect(revalidated.headers.get("cache-control")).toMatch(/^public, max-age=\d+/);
    const weak = await get(url, "profile=standard", { "if-none-match": `W/${etag}` });
    expect(weak.status).toBe(304);
    const stale = await get(url, "profile=standard", { "if-none-match": '"0123456789abcdef0123456789abcdef"' });
    expect(stale.status).toBe(200);
    const posted = await inspect(url, "profile=standard", { headers: { "if-none-match": etag } });
    expect(posted.status).toBe(200);
  });

  it("partial answers and 202s are no-store, and never 304", async () => {
    const partial = await get(media("video-moov-end.mp4"), "profile=fast");
    expect(partial.status, partial.text).toBe(200);
    expect(partial.body.processing.status).not.toBe("complete");
    expect(partial.headers.get("cache-control")).toBe("no-store");
    expect(partial.headers.get("cache-status")).toMatch(/^media-inspect; fwd=miss(; collapsed)?$/);
    const again = await get(media("video-moov-end.mp4"), "profile=fast", { "if-none-match": partial.headers.get("etag")! });
    expect(again.status).toBe(200);
    const accepted = await get(media("video-moov-end.mp4"), "profile=standard");
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get("cache-control")).toBe("no-store");
  });
});

describe("freshness headers (RFC 9111 4.2.3)", () => {
  it("a 60 s record 35 s old: max-age=60 with Age 35 (25 s left), not max-age=24 with Age 35", () => {
    const now = 1_000_000_000;
    const record = { createdAt: now - 35_000, updatedAt: now - 1_000, expiresAt: now + 25_000 } as ResourceRecord;
    expect(freshnessOf(record, now)).toEqual({ life: 60, age: 35, ttl: 25 });
    // Confirmed by the origin 5 s ago (a 304 on maxAge): its life starts again from then.
    expect(freshnessOf({ ...record, validatedAt: now - 5_000, expiresAt: now + 55_000 }, now)).toEqual({ life: 60, age: 5, ttl: 55 });
  });
});
