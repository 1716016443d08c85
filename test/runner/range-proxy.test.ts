/** The Range proxy in front of ffmpeg: seeking costs Range requests, and bytes are shared between engines. */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { parseRange } from "../../media-runner/src/proxy/range-header.ts";
import { processRequest, startAppWithOrigin } from "../../testkit/runner/harness.ts";
import type { LoopbackOrigin } from "../../testkit/loopback-origin.ts";

const dir = inject("runnerFixturesDir");
let origin: LoopbackOrigin;
let app: RunnerApp;
let close: () => Promise<void>;

beforeAll(async () => ({ origin, app, close } = await startAppWithOrigin()));
afterAll(() => close());

describe("reading through the Range proxy", () => {
  it("an MP4 with moov at the end is read with Range requests, not downloaded whole", async () => {
    origin.reset();
    const res = await processRequest(app, { url: `${origin.url}/files/long-moov-end.mp4`, category: "video", stages: ["metadata", "thumbnail"] });
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.video?.duration?.formatted).toBe("0:30");
    const size = (await stat(join(dir, "long-moov-end.mp4"))).size;
    // Bytes in flight when an engine drops a connection may reach the origin's socket but not the runner.
    expect(origin.stats.bytes).toBeGreaterThanOrEqual(result.bytesFetched!);
    // The block cache serves ffprobe and ffmpeg alike: each byte is pulled once at most (a direct
    // `ffprobe URL` + `ffmpeg -i URL` pair pulls this file more than twice over; see bench/runner-vs-ffmpeg.ts).
    expect(result.bytesFetched).toBeLessThanOrEqual(size);
    // Every request to the origin asked for a byte range; the tail (moov) was reached by one.
    const ranges = origin.stats.requests.map((r) => r.headers.range);
    expect(ranges.every((r) => typeof r === "string" && r.startsWith("bytes="))).toBe(true);
    const starts = ranges.map((r) => Number(/bytes=(\d+)-/.exec(r!)![1]));
    expect(Math.max(...starts)).toBeGreaterThan(size / 2);
  });

  it("ffprobe and ffmpeg share what was pulled: no byte of a small file is fetched twice", async () => {
    origin.reset();
    const res = await processRequest(app, { url: `${origin.url}/files/h264-aac-moov-end.mp4`, category: "video", stages: ["metadata", "thumbnail"] });
    expect(res.statusCode).toBe(200);
    expect(origin.stats.bytes).toBeLessThanOrEqual((await stat(join(dir, "h264-aac-moov-end.mp4"))).size);
  });

  it("audio metadata bytes are counted as the origin sent them", async () => {
    origin.reset();
    const res = await processRequest(app, { url: `${origin.url}/files/tone.wav`, category: "audio", stages: ["metadata"] });
    expect(res.statusCode).toBe(200);
    expect(RunnerResponse.parse(res.json()).bytesFetched).toBe(origin.stats.bytes);
  });
});

describe("Range header parsing", () => {
  it("resolves the forms ffmpeg sends against the size", () => {
    expect(parseRange(undefined, 100)).toEqual({ kind: "none" });
    expect(parseRange("bytes=0-", 100)).toEqual({ kind: "range", start: 0, end: 99 });
    expect(parseRange("bytes=10-19", 100)).toEqual({ kind: "range", start: 10, end: 19 });
    expect(parseRange("bytes=90-200", 100)).toEqual({ kind: "range", start: 90, end: 99 });
    expect(parseRange("bytes=-10", 100)).toEqual({ kind: "range", start: 90, end: 99 });
    expect(parseRange("bytes=100-", 100)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=5-", undefined)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=0-", undefined)).toEqual({ kind: "none" });
  });
});
