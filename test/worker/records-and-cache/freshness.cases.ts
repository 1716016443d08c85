// Issue 25 item 2: freshness on request. maxAge bounds a record's age; an older one is revalidated by the
// resource object with one conditional request (If-None-Match / If-Modified-Since from the probe's validators):
// the origin's 304 keeps the record, a changed file is inspected anew.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { origin, originStats } from "../../../testkit/worker/helpers.ts";
import { recordOlderThan } from "../../../testkit/worker/object-state.ts";
import { waitFor } from "../../../testkit/wait-for.ts";

/** Ages are whole seconds (maxAge=0 accepts a record confirmed within the last second): wait until the record is older. */
const pastOneSecond = (url: string) => waitFor(() => recordOlderThan(url, 0), { intervalMs: 50, what: `the record of ${url} to outgrow maxAge=0` });

async function get(url: string, query: string) {
  const params = new URLSearchParams(query);
  params.set("url", url);
  const response = await SELF.fetch(`http://service/api/v1/inspect?${params}`);
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), headers: response.headers, text };
}

async function requestsFor(id: string) {
  return (await originStats()).requests.filter((r) => r.path.includes(`/play/validated/${id}/`));
}

describe("freshness on request (maxAge)", () => {
  it("maxAge=0 on an unchanged file: one conditional request, the origin's 304, the record kept", async () => {
    const id = crypto.randomUUID().slice(0, 8);
    const url = `${origin}/play/validated/${id}/png-opaque.png`;
    const first = await get(url, "profile=standard");
    expect(first.status, first.text).toBe(200);
    expect(first.body.processing.status).toBe("complete");
    const before = (await requestsFor(id)).length;

    // Within maxAge: answered from the edge cache, the origin not asked.
    const young = await get(url, "profile=standard&maxAge=3600");
    expect(young.headers.get("cache-status")).toMatch(/^media-inspect; hit; ttl=\d+$/);
    expect((await requestsFor(id)).length).toBe(before);

    await pastOneSecond(url);
    const checked = await get(url, "profile=standard&maxAge=0");
    expect(checked.status).toBe(200);
    expect(checked.headers.get("cache-status")).toMatch(/^media-inspect; fwd=stale; fwd-status=304; stored; ttl=\d+$/);
    expect(checked.headers.get("age")).toBe("0");
    const after = (await requestsFor(id)).slice(before);
    expect(after).toHaveLength(1);
    expect(after[0]!.headers["if-none-match"]).toBe(`"${id}-v1"`);
    expect(after[0]!.headers["if-modified-since"]).toBeDefined();
    // The same record: the same representation, so the same ETag.
    expect(checked.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(checked.body.data.metadata).toEqual(first.body.data.metadata);
  });

  it("maxAge=0 on a changed file: re-inspected, the new file's facts and thumbnail", async () => {
    const id = crypto.randomUUID().slice(0, 8);
    const url = `${origin}/play/validated/${id}/png-opaque.png~jpeg-orientation-6.jpg`;
    const first = await get(url, "profile=standard");
    expect(first.status, first.text).toBe(200);
    await fetch(`${origin}/play/bump/${id}`);
    await pastOneSecond(url);
    const changed = await get(url, "profile=standard&maxAge=0");
    expect(changed.status === 200 || changed.status === 202, changed.text).toBe(true);
    expect(changed.headers.get("cache-status")).toMatch(/^media-inspect; fwd=stale; fwd-status=206/);
    expect(changed.body.responseSource).toBe("fresh");
    expect(changed.body.data.identity.mime).toBe("image/jpeg");
    expect(first.body.data.identity.mime).toBe("image/png");
  });

  it("maxAge=0 on a changed file: the new thumbnail has a new URL and serves the new image; the old URL answers 404", async () => {
    const id = crypto.randomUUID().slice(0, 8);
    const url = `${origin}/play/validated/${id}/png-opaque.png~jpeg-orientation-6.jpg`;
    const first = await get(url, "profile=standard");
    expect(first.status, first.text).toBe(200);
    const oldUrl: string = first.body.data.preview.thumbnail.url;
    // Resource key, revision, size: the revision names the file the thumbnail was made from.
    expect(oldUrl).toMatch(/^\/api\/v1\/thumbnails\/[0-9a-f]{64}-[0-9a-f]{16}-\d+x\d+\.webp$/);
    const oldImage = await SELF.fetch(`http://service${oldUrl}`);
    expect(oldImage.status).toBe(200);
    expect(oldImage.headers.get("cache-control")).toContain("immutable");
    const oldBytes = new Uint8Array(await oldImage.arrayBuffer());

    await fetch(`${origin}/play/bump/${id}`);
    await pastOneSecond(url);
    const changed = await get(url, "profile=standard&maxAge=0");
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.processing.status).toBe("complete");
    const newUrl: string = changed.body.data.preview.thumbnail.url;
    expect(newUrl).not.toBe(oldUrl);
    // The same resource (same key), another revision.
    expect(newUrl.slice(0, newUrl.lastIndexOf("-") - 17)).toBe(oldUrl.slice(0, oldUrl.lastIndexOf("-") - 17));
    const newImage = await SELF.fetch(`http://service${newUrl}`);
    expect(newImage.status).toBe(200);
    expect(newImage.headers.get("content-type")).toBe("image/webp");
    const newBytes = new Uint8Array(await newImage.arrayBuffer());
    expect(String.fromCharCode(...newBytes.subarray(0, 4))).toBe("RIFF");
    expect(newBytes.length === oldBytes.length && newBytes.every((b, i) => b === oldBytes[i])).toBe(false);
    // The old file's thumbnail is gone: a cache that asks again learns it, and the record names only the new one.
    const gone = await SELF.fetch(`http://service${oldUrl}`);
    await gone.arrayBuffer();
    expect(gone.status).toBe(404);
    const again = await get(url, "profile=standard");
    expect(again.body.data.preview.thumbnail.url).toBe(newUrl);
  });

  it("maxAge must be whole seconds", async () => {
    const r = await get(`${origin}/media/png-opaque.png`, "maxAge=1e3");
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("INVALID_PARAMETER");
  });
});
