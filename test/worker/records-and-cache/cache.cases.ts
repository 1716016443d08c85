// Issue 3, cache and single-flight through the Worker: a fresh record answers from cache, concurrent callers
// share one probe (counted at the loopback origin), and `processing` does not depend on profile or fields.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inspect, media, origin, originStats } from "../../../testkit/worker/helpers.ts";

const probeHeadBytes = 16 * 1024;
const concurrentCallers = 50;

async function requestsFor(url: string) {
  const nonce = new URL(url).searchParams.get("n")!;
  return (await originStats()).requests.filter((r) => new URL(r.path, origin).searchParams.get("n") === nonce);
}

async function fileSize(file: string): Promise<number> {
  return (await (await fetch(`${origin}/media/${file}`)).arrayBuffer()).byteLength;
}

function rawInspect(url: string, query = "") {
  return SELF.fetch(`http://service/api/v1/inspect${query ? `?${query}` : ""}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url }),
  });
}

describe("cache", () => {
  it("a second inspection answers from the record: responseSource cache, cached true, no origin traffic", async () => {
    const url = media("png-opaque.png");
    const first = await inspect(url);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ responseSource: "fresh", cached: false });
    const seen = (await requestsFor(url)).length;
    expect(seen).toBeGreaterThan(0);

    const second = await inspect(url);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ responseSource: "cache", cached: true });
    expect(second.body.data).toEqual(first.body.data);
    expect(second.body.processing).toEqual(first.body.processing);
    expect(await requestsFor(url)).toHaveLength(seen);
  });

  it("the cache is per resource: a fragment is the same resource, another query string is not", async () => {
    const url = media("png-opaque.png");
    await inspect(url);
    const withFragment = await inspect(`${url}#part`);
    expect(withFragment.body).toMatchObject({ responseSource: "cache", cached: true });
    // The answer echoes the caller's URL, not the first caller's.
    expect(withFragment.body.data.identity.url).toBe(`${url}#part`);
    const other = await inspect(`${url}&other=1`);
    expect(other.body).toMatchObject({ responseSource: "fresh", cached: false });
  });

  it("every profile and fields selection of a cached resource answers from cache", async () => {
    const url = media("jpeg-rgb.jpg");
    await inspect(url);
    for (const query of ["profile=fast", "profile=full", "fields=identity", "profile=fast&fields=metadata,preview"]) {
      const { status, body } = await inspect(url, query);
      expect(status, query).toBe(200);
      expect(body, query).toMatchObject({ responseSource: "cache", cached: true });
    }
  });
});

describe("single-flight", () => {
  it(`${concurrentCallers} concurrent inspections of a new URL make one probe and one download at the origin`, async () => {
    const file = "png-alpha.png";
    const size = await fileSize(file);
    const url = media(file);

    const responses = await Promise.all(Array.from({ length: concurrentCallers }, () => rawInspect(url)));
    const bodies = await Promise.all(responses.map((r) => r.json() as Promise<any>));
    expect(responses.map((r) => r.status)).toEqual(Array(concurrentCallers).fill(200));

    const sources = bodies.map((b) => b.responseSource as string);
    expect(sources.filter((s) => s === "fresh")).toHaveLength(1);
    expect(sources.filter((s) => s === "inflight").length).toBeGreaterThanOrEqual(1);
    expect(sources.every((s) => ["fresh", "inflight", "cache"].includes(s))).toBe(true);
    for (const body of bodies) {
      expect(body.cached).toBe(body.responseSource === "cache");
      // Joiners get the same finished answer, previews included.
      expect(body.processing).toEqual(bodies[0].processing);
      expect(body.data.preview).toEqual(bodies[0].data.preview);
    }
    expect(bodies[0].processing.status).toBe("complete");

    const requests = await requestsFor(url);
    // One Range probe of the head, which holds this whole file, so the edge previews need no second GET.
    // Never one request per caller: the file's bytes cross the wire exactly once.
    const probes = requests.filter((r) => r.range !== undefined);
    expect(requests).toHaveLength(1);
    expect(probes).toHaveLength(1);
    expect(probes[0]!.range).toBe(`bytes=0-${probeHeadBytes - 1}`);
    expect(requests.reduce((n, r) => n + r.bytes, 0)).toBe(size);
  });

  it(`${concurrentCallers} concurrent inspections of a larger image: the head once, then only the rest, once`, async () => {
    const file = "image-1280x720.png";
    const size = await fileSize(file);
    expect(size).toBeGreaterThan(probeHeadBytes);
    const url = media(file);
    const responses = await Promise.all(Array.from({ length: concurrentCallers }, () => rawInspect(url)));
    const bodies = await Promise.all(responses.map((r) => r.json() as Promise<any>));
    expect(bodies.every((b) => b.processing.status === "complete")).toBe(true);
    expect(bodies.filter((b) => b.responseSource === "fresh")).toHaveLength(1);
    const requests = await requestsFor(url);
    expect(requests.map((r) => r.range)).toEqual([`bytes=0-${probeHeadBytes - 1}`, `bytes=${probeHeadBytes}-`]);
    expect(requests.reduce((n, r) => n + r.bytes, 0)).toBe(size);
  });

  // A file smaller than the probe head arrives whole in the probe; the edge stages reuse those bytes.
  it("a file that fits in the probe head is pulled from the origin exactly once", async () => {
    const file = "png-alpha.png";
    const size = await fileSize(file);
    const url = media(file);
    await Promise.all(Array.from({ length: concurrentCallers }, () => rawInspect(url).then((r) => r.arrayBuffer())));
    const requests = await requestsFor(url);
    expect(requests.reduce((n, r) => n + r.bytes, 0)).toBe(size);
  });

  it("concurrent callers with different profiles share the probe too", async () => {
    const url = media("webp-lossy.webp");
    const queries = ["profile=fast", "", "profile=full", "fields=identity", "profile=fast&fields=metadata"];
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => inspect(url, queries[i % queries.length]!)),
    );
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(replies.filter((r) => r.body.responseSource === "fresh")).toHaveLength(1);
    expect((await requestsFor(url)).filter((r) => r.range !== undefined)).toHaveLength(1);
  });
});

describe("processing is derived from the record alone", () => {
  const variants = [
    "profile=fast",
    "profile=standard",
    "fields=identity",
    "fields=preview,metadata",
    "profile=fast&fields=semantic",
    "profile=standard&expand=embedHtml",
    "profile=standard&debug=true&expand=rawHeaders",
  ];

  it("identical across profiles, fields and expand for a complete image", async () => {
    const url = media("gif-opaque.gif");
    const reference = (await inspect(url, "profile=full")).body.processing;
    expect(reference.status).toBe("complete");
    for (const query of variants) expect((await inspect(url, query)).body.processing, query).toEqual(reference);
  });

  it("identical across profiles and fields while runner stages are pending, and consistent", async () => {
    // The runner gate refuses this URL's runner calls, so the previews stay pending for the retry window
    // (RUNNER_RETRY_BASE_SECONDS=1 in tests: the first retry comes after a second, the last after three).
    const url = media("jpeg-cmyk.jpg", "runner=down-100");
    const first = await inspect(url, "profile=fast");
    const reference = first.body.processing;
    expect(reference).toEqual({
      status: "partial",
      completion: 0.57,
      enrichmentsPending: true,
      completedStages: ["semantic", "mediaFormat", "metadata:image", "metadata:provenance"],
      pendingStages: ["preview:thumbnail", "preview:blurhash", "preview:palette"],
    });
    for (const query of variants) {
      const { status, body } = await inspect(url, query);
      expect(body.processing, query).toEqual(reference);
      // Only standard-like profiles answer 202 with a job while work is pending; fast answers 200.
      expect(status, query).toBe(query.includes("fast") ? 200 : 202);
      if (body.data.preview !== undefined) {
        expect(body.data.preview).toEqual({ thumbnail: null, placeholder: null, palette: null, dominantColor: null });
      }
    }
  });
});
