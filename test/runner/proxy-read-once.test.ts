/**
 * Each byte crosses the wire once, also when the origin ignores Range: the proxy spools the one GET and the
 * engines (ffprobe, then ffmpeg seeking for a frame) read the spool instead of starting the download again.
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { processRequest, startAppWithOrigin } from "../../testkit/runner/harness.ts";
import type { LoopbackOrigin } from "../../testkit/loopback-origin.ts";

const dir = inject("runnerFixturesDir");
let origin: LoopbackOrigin;
let app: RunnerApp;
let close: () => Promise<void>;

beforeAll(async () => ({ origin, app, close } = await startAppWithOrigin()));
afterAll(() => close());

/** The source's first request (one block) is answered by the whole body and dropped after that block. */
const firstRequestSlack = 1024 * 1024;

describe("an origin without Range support", () => {
  it("is read once for metadata and a frame from a moov-at-end MP4 (previously one full GET per seek)", async () => {
    origin.reset();
    const res = await processRequest(app, { url: `${origin.url}/norange/long-moov-end.mp4`, category: "video", stages: ["metadata", "thumbnail"] });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.video?.duration?.formatted).toBe("0:30");
    expect(result.thumbnail?.width).toBeGreaterThan(0);
    const size = (await stat(join(dir, "long-moov-end.mp4"))).size;
    // One full GET after the first block's request: at most the file once plus that first response's slack.
    expect(origin.stats.requests.length).toBeLessThanOrEqual(2);
    expect(origin.stats.bytes).toBeLessThanOrEqual(size + firstRequestSlack);
  });

  it("a file served without Content-Length is still read once and described", async () => {
    origin.reset();
    const res = await processRequest(app, { url: `${origin.url}/norange/h264-aac-moov-end.mp4`, category: "video", stages: ["metadata"] });
    expect(res.statusCode).toBe(200);
    expect(RunnerResponse.parse(res.json()).metadata?.video?.width).toBe(640);
    expect(origin.stats.requests.length).toBeLessThanOrEqual(2);
  });
});

describe("a duration hint from the edge", () => {
  it("starts the frame alongside ffprobe: same previews, each byte still pulled at most once", async () => {
    origin.reset();
    const res = await processRequest(app, {
      url: `${origin.url}/files/h264-aac-moov-end.mp4`, category: "video", stages: ["metadata", "thumbnail", "placeholder"], durationHint: 4,
    });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.video?.width).toBe(640);
    expect(result.thumbnail?.width).toBe(320);
    expect(result.placeholder).toBeDefined();
    expect(origin.stats.bytes).toBeLessThanOrEqual((await stat(join(dir, "h264-aac-moov-end.mp4"))).size);
  });

  it("is ignored when the streams show no picture (audio asked as video keeps only metadata)", async () => {
    const res = await processRequest(app, { url: `${origin.url}/files/tone.mp3`, category: "video", stages: ["metadata", "thumbnail"], durationHint: 3 });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.detected?.category).toBe("audio");
    expect(result.thumbnail).toBeUndefined();
  });
});
