/**
 * Issue 20 item 2: the runner's share of one inspection's origin budget (RunnerRequest.budget, shared/limits.ts)
 * bounds every origin request and byte of the job, whichever path makes it (the source, the manifest session's
 * playlists and segments); past it the job or its stages fail with the budget's reason, never a hang.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { inspectionOriginRequestBudget } from "../../shared/limits.ts";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { startLoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { generateStreamFixtures } from "../../testkit/stream-fixtures.ts";
import { processRequest, testApp } from "../../testkit/runner/harness.ts";

const streamsDir = join(import.meta.dirname, "..", ".fixtures", "streams");
const budgetDir = join(import.meta.dirname, "..", ".fixtures", "budget-streams");
let origin: Awaited<ReturnType<typeof startLoopbackOrigin>>;
let app: RunnerApp;

/** A master playlist of `count` variants, each the real low variant behind `hops` redirects (distinct URLs). */
function masterOf(count: number, hops: number): string {
  const lines = ["#EXTM3U"];
  for (let i = 0; i < count; i++) {
    lines.push(`#EXT-X-STREAM-INF:BANDWIDTH=${100_000 + i},RESOLUTION=240x136`);
    lines.push(`${hops > 0 ? `/redirect/${hops}` : ""}/media/hls/v1/index.m3u8?v=${i}`);
  }
  return lines.join("\n") + "\n";
}

beforeAll(async () => {
  await generateStreamFixtures(streamsDir);
  await mkdir(budgetDir, { recursive: true });
  await writeFile(join(budgetDir, "master-2000.m3u8"), masterOf(2000, 0));
  await writeFile(join(budgetDir, "master-60-redirected.m3u8"), masterOf(60, 2));
  origin = await startLoopbackOrigin([streamsDir, budgetDir, inject("runnerFixturesDir")]);
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
}, 120_000);
afterAll(async () => {
  await app.close();
  await origin.close();
});

const at = (path: string) => `${origin.url}/media/${path}`;
const requestBudgetReason = /origin request budget is spent \(inspectionOriginRequestBudget/;

describe("the runner's origin budget", () => {
  it("a stream job given 1 request reads the playlist and stops: the segment is never asked for", async () => {
    origin.stats.requests.length = 0;
    const res = await processRequest(app, {
      url: at("hls/master.m3u8"), category: "video", stages: ["thumbnail"],
      stream: { protocol: "hls", playlistUrl: at("hls/v1/index.m3u8"), segmentUrl: at("hls/v1/seg0.ts") },
      budget: { requests: 1, bytes: 10 * 1024 * 1024 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages?.thumbnail?.status).toBe("failed");
    expect(result.stages?.thumbnail?.reason).toMatch(requestBudgetReason);
    expect(origin.stats.requests.map((r) => r.path)).toEqual(["/media/hls/v1/index.m3u8"]);
  });

  it("a file job given 1 request fails with PAYLOAD_TOO_LARGE naming the budget after that one request", async () => {
    origin.stats.requests.length = 0;
    const res = await processRequest(app, {
      url: at("long-moov-end.mp4"), category: "video", stages: ["metadata", "thumbnail"], budget: { requests: 1, bytes: 50 * 1024 * 1024 },
    });
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", message: expect.stringMatching(requestBudgetReason) });
    expect(origin.stats.requests).toHaveLength(1);
  });

  it("a file job given 20,000 bytes is cut off there with the byte budget's reason", async () => {
    const res = await processRequest(app, {
      url: at("long-moov-end.mp4"), category: "video", stages: ["metadata"], budget: { requests: 10, bytes: 20_000 },
    });
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().error.message).toMatch(/origin byte budget is spent \(inspectionOriginByteBudget/);
  });

  it("without a budget field the job has the whole budget: 60 redirected variants stop at it, not at 181 requests", async () => {
    origin.stats.requests.length = 0;
    const started = performance.now();
    const res = await processRequest(app, {
      url: at("master-60-redirected.m3u8"), category: "video", stages: ["thumbnail", "placeholder"],
      stream: { protocol: "hls", playlistUrl: at("master-60-redirected.m3u8"), segmentUrl: at("hls/v1/seg0.ts") },
    });
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages?.thumbnail).toMatchObject({ status: "failed", reason: expect.stringMatching(requestBudgetReason) });
    // 1 master + 60 variants x 3 hops would be 181: the budget let out exactly its number, no more.
    expect(origin.stats.requests).toHaveLength(inspectionOriginRequestBudget);
    expect(result.requests).toBe(inspectionOriginRequestBudget);
  });

  it("a 2,000-variant master is refused at the session's URL bound, derived from the budget, after one request", async () => {
    origin.stats.requests.length = 0;
    const res = await processRequest(app, {
      url: at("master-2000.m3u8"), category: "video", stages: ["thumbnail"],
      stream: { protocol: "hls", playlistUrl: at("master-2000.m3u8"), segmentUrl: at("hls/v1/seg0.ts") },
    });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages?.thumbnail).toMatchObject({ status: "failed", reason: expect.stringContaining(`more than ${inspectionOriginRequestBudget} URLs`) });
    expect(origin.stats.requests.map((r) => r.path)).toEqual(["/media/master-2000.m3u8"]);
  });

  it("a legitimate stream job reports the requests it made, well inside the budget", async () => {
    const res = await processRequest(app, {
      url: at("hls/master.m3u8"), category: "video", stages: ["thumbnail"],
      stream: { protocol: "hls", playlistUrl: at("hls/v1/index.m3u8"), segmentUrl: at("hls/v1/seg0.ts") },
    });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages?.thumbnail?.status).toBe("done");
    expect(result.requests).toBeGreaterThanOrEqual(2);
    expect(result.requests).toBeLessThan(inspectionOriginRequestBudget / 10);
  });
});
