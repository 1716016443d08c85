import type { RunnerApp } from "../../media-runner/src/app.ts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { RunnerErrorBody, RunnerHealth } from "../../shared/shapes/runner.ts";
import { processRequest, testApp, testToken } from "../../testkit/runner/harness.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { waitFor } from "../../testkit/wait-for.ts";

const dir = inject("runnerFixturesDir");
let origin: LoopbackOrigin;

beforeAll(async () => {
  origin = await startLoopbackOrigin([dir]);
});
afterAll(() => origin.close());

const body = () => ({ url: `${origin.url}/slow/400/tone.mp3`, category: "audio" as const, stages: ["metadata" as const] });

describe("authentication", () => {
  let app: RunnerApp;
  beforeAll(async () => {
    app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
  });
  afterAll(() => app.close());

  it("answers 401 UNAUTHORIZED without a token, with a wrong one, or with a bare one, and fetches nothing", async () => {
    origin.reset();
    for (const token of [null, "wrong-token-0123456789", `${testToken}x`, ""]) {
      const res = await processRequest(app, body(), token);
      expect(res.statusCode, String(token)).toBe(401);
      expect(RunnerErrorBody.parse(res.json()).error.code).toBe("UNAUTHORIZED");
      expect(res.headers["www-authenticate"]).toContain("Bearer");
    }
    const raw = await app.inject({ method: "POST", url: "/v1/process", headers: { authorization: testToken }, payload: body() });
    expect(raw.statusCode).toBe(401);
    expect(origin.stats.requests.length).toBe(0);
  });

  it("accepts the configured bearer token", async () => {
    const res = await processRequest(app, body());
    expect(res.statusCode).toBe(200);
  });

  it("serves the health endpoint without a token", async () => {
    const res = await app.inject({ method: "GET", url: "/v1/health" });
    expect(res.statusCode).toBe(200);
    expect(RunnerHealth.parse(res.json())).toMatchObject({ status: "ok", concurrency: 2 });
  });

  it("answers 400 INVALID_PAYLOAD for a body the schema refuses", async () => {
    for (const payload of [
      { url: "ftp://example.com/a.mp4", category: "video", stages: ["metadata"] },
      { url: "not a url", category: "video", stages: ["metadata"] },
      { url: `${origin.url}/files/tone.mp3`, category: "document", stages: ["metadata"] },
      { url: `${origin.url}/files/tone.mp3`, category: "audio", stages: [] },
      { url: `${origin.url}/files/tone.mp3`, category: "audio", stages: ["metadata"], thumbnailMaxPx: 100_000 },
    ]) {
      const res = await app.inject({ method: "POST", url: "/v1/process", headers: { authorization: `Bearer ${testToken}` }, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(RunnerErrorBody.parse(res.json()).error.code).toBe("INVALID_PAYLOAD");
    }
  });
});

describe("concurrency limit", () => {
  async function maxParallelAtOrigin(concurrency: number, jobs: number): Promise<number> {
    const app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, RUNNER_CONCURRENCY: String(concurrency) });
    try {
      origin.reset();
      const results = await Promise.all(Array.from({ length: jobs }, () => processRequest(app, body())));
      expect(results.map((r: { statusCode: number }) => r.statusCode)).toEqual(Array(jobs).fill(200));
      return origin.stats.maxInFlight;
    } finally {
      await app.close();
    }
  }

  it("runs at most RUNNER_CONCURRENCY jobs at once and queues the rest", async () => {
    // Each job's first request waits 400 ms at the origin, so overlapping jobs overlap there.
    expect(await maxParallelAtOrigin(1, 3)).toBe(1);
    expect(await maxParallelAtOrigin(3, 3)).toBe(3);
  });

  it("answers 503 RUNNER_BUSY when the queue is full, and reports active and queued jobs", async () => {
    const app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, RUNNER_CONCURRENCY: "1", RUNNER_MAX_QUEUE: "1" });
    try {
      const first = processRequest(app, body());
      const second = processRequest(app, body());
      const health = await waitFor(async () => {
        const now = RunnerHealth.parse((await app.inject({ method: "GET", url: "/v1/health" })).json());
        return now.active + now.queued === 2 && now;
      }, { what: "both jobs admitted" });
      expect([health.active, health.queued]).toEqual([1, 1]);
      const third = await processRequest(app, body());
      expect(third.statusCode).toBe(503);
      expect(RunnerErrorBody.parse(third.json()).error.code).toBe("RUNNER_BUSY");
      expect((await first).statusCode).toBe(200);
      expect((await second).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
