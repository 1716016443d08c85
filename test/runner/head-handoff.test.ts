/**
 * Each byte crosses the wire once (issue 10, item 2): the bytes the edge already read seed the runner's cache
 * (the origin is not asked for them again) when the origin's first answer shows the same file, and are
 * ignored when it does not; and a faststart MP4 read through the paced proxy costs the moov plus the GOP of
 * the chosen frame, not the file.
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { RunnerResponse, type RunnerHead } from "../../shared/shapes/runner.ts";
import { processRequest, testApp } from "../../testkit/runner/harness.ts";
import { bigFaststart, makeBigFaststart } from "../../testkit/runner/fixtures.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { waitFor } from "../../testkit/wait-for.ts";
import { defaultSourceLimits } from "../../media-runner/src/fetch/source-seed.ts";

const dir = inject("runnerFixturesDir");
let origin: LoopbackOrigin;
let app: RunnerApp;

beforeAll(async () => {
  await makeBigFaststart(dir);
  origin = await startLoopbackOrigin([dir]);
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
}, 120_000);
afterAll(async () => {
  await app.close();
  await origin.close();
});

/** The validators the origin sends for a file (what the edge would have seen). */
async function validatorsOf(name: string): Promise<{ etag: string; lastModified: string }> {
  const res = await fetch(`${origin.url}/files/${name}`, { headers: { range: "bytes=0-0" } });
  await res.arrayBuffer();
  return { etag: res.headers.get("etag")!, lastModified: res.headers.get("last-modified")! };
}

async function headOf(name: string, bytes: number, overrides: Partial<RunnerHead> = {}): Promise<RunnerHead> {
  const file = await readFile(join(dir, name));
  return { base64: file.subarray(0, bytes).toString("base64"), size: file.length, ...(await validatorsOf(name)), ...overrides };
}

/** [start, end] of every Range request the origin got, in order. */
function requestedRanges(): [number, number][] {
  return origin.stats.requests.map(({ headers: h }) => {
    const match = /^bytes=(\d+)-(\d*)$/.exec(h.range ?? "");
    return match ? [Number(match[1]), match[2] === "" ? Infinity : Number(match[2])] : [0, Infinity];
  });
}

const video = { category: "video" as const, stages: ["metadata" as const, "thumbnail" as const], durationHint: 4 };

describe("the edge's head handed to the runner", () => {
  it.each([16 * 1024, 64 * 1024, 100_000])("seeds the cache: the origin is never asked for the first %i bytes", async (bytes) => {
    const head = await headOf("h264-aac-faststart.mp4", bytes);
    origin.reset();
    const res = await processRequest(app, { url: `${origin.url}/files/h264-aac-faststart.mp4`, ...video, head });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.video?.width).toBe(640);
    expect(result.thumbnail?.width).toBe(320);
    const ranges = requestedRanges();
    expect(ranges.length).toBeGreaterThan(0);
    for (const [start] of ranges) expect(start).toBeGreaterThanOrEqual(bytes);
    // The first request carried the edge's validator.
    expect(origin.stats.requests[0]?.headers["if-range"]).toBe(head.etag);
    expect(result.bytesFetched).toBeLessThanOrEqual(head.size - bytes);
  });

  it("a whole small file is checked with one 1-byte request and never downloaded again", async () => {
    const file = await readFile(join(dir, "no-audio.mp4"));
    const head = await headOf("no-audio.mp4", file.length);
    origin.reset();
    const res = await processRequest(app, { url: `${origin.url}/files/no-audio.mp4`, ...video, durationHint: 2, head });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.video?.width).toBe(480);
    expect(result.thumbnail?.width).toBe(320);
    expect(origin.stats.requests.length).toBe(1);
    expect(requestedRanges()).toEqual([[0, 0]]);
    expect(origin.stats.bytes).toBe(1);
  });

  it.each([
    ["ETag", { etag: '"stale-etag"' }],
    ["Last-Modified", { lastModified: "Mon, 01 Jan 2001 00:00:00 GMT" }],
    ["size", { size: 1 << 24 }],
  ] as const)("is ignored when the %s differs from what the origin sends: the file is read from the origin", async (_what, overrides) => {
    // Bytes that are not the file's: used, they would break the answer.
    const real = await headOf("h264-aac-faststart.mp4", 64 * 1024, overrides);
    origin.reset();
    const head = { ...real, base64: Buffer.alloc(64 * 1024, 0x41).toString("base64") };
    const res = await processRequest(app, { url: `${origin.url}/files/h264-aac-faststart.mp4`, ...video, head });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.video?.width).toBe(640);
    expect(result.thumbnail?.width).toBe(320);
    expect(requestedRanges().some(([start]) => start === 0)).toBe(true);
  });

  it("refuses a head that is not base64 or larger than the file (400, never a crash)", async () => {
    const url = `${origin.url}/files/h264-aac-faststart.mp4`;
    for (const head of [
      { base64: "not base64!", size: 10 },
      { base64: Buffer.alloc(30).toString("base64"), size: 10 },
      { base64: Buffer.alloc(30).toString("base64"), size: 100, etag: "bad\nvalue" },
    ]) {
      const res = await processRequest(app, { url, ...video, head });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe("INVALID_PAYLOAD");
    }
  });
});

describe("a faststart MP4 with Range", () => {
  it("metadata and the frame at 10 % pull under 25 % of the file (the moov and one GOP)", async () => {
    origin.reset();
    const size = (await stat(join(dir, bigFaststart))).size;
    const res = await processRequest(app, {
      url: `${origin.url}/files/${bigFaststart}`, category: "video", stages: ["metadata", "thumbnail", "placeholder", "palette"], durationHint: 20,
    });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.video?.width).toBe(1280);
    expect(result.thumbnail?.width).toBe(320);
    // Let connections the engines dropped finish counting.
    await waitFor(() => origin.stats.inFlight === 0, { what: "the origin's requests closed" });
    expect(origin.stats.bytes).toBeLessThan(0.25 * size);
    // The job reports what it received. A read still under way when the job ended (the first request's rest, a
    // keyframe prefetch) is stopped by the source's close(): what the origin had already written to the socket by
    // then is counted by the origin only, at most one block per stopped read (seen in a loaded CI run: one block).
    const fetched = result.bytesFetched ?? -1;
    expect(fetched).toBeGreaterThan(0);
    expect(fetched).toBeLessThanOrEqual(origin.stats.bytes);
    expect(origin.stats.bytes - fetched).toBeLessThanOrEqual(2 * defaultSourceLimits.blockBytes);
  });
});
