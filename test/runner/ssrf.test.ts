/**
 * SSRF: the runner's own requests and everything ffmpeg reads go through the vetted agent. Denied
 * addresses (here 127.0.0.2 and 10.0.0.1, not on the allow-list) are refused before any socket is opened,
 * whether named directly, reached through DNS, or reached by a redirect hop. A trap listener on 127.0.0.2
 * counts connections to prove none was attempted.
 */
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { RunnerErrorBody, RunnerResponse } from "../../shared/shapes/runner.ts";
import type { Resolver } from "../../media-runner/src/fetch/resolver.ts";
import { processRequest, testApp, testToken } from "../../testkit/runner/harness.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { startTrap, type Trap } from "../../testkit/runner/trap.ts";

const dir = inject("runnerFixturesDir");
let origin: LoopbackOrigin;
let trap: Trap;
let app: RunnerApp;
const resolved: string[] = [];

/** Fake DNS: names of the test world and what they point at. */
const zone: Record<string, string[]> = {
  "media.example.com": ["127.0.0.1"],
  "evil.example.com": ["127.0.0.2"],
  "private.example.com": ["10.0.0.1"],
  "mixed.example.com": ["127.0.0.1", "127.0.0.2"],
};
const fakeResolver: Resolver = async (hostname) => {
  resolved.push(hostname);
  const answer = zone[hostname];
  if (!answer) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  return answer;
};

beforeAll(async () => {
  origin = await startLoopbackOrigin([dir]);
  trap = await startTrap("127.0.0.2");
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` }, fakeResolver);
});
afterAll(async () => {
  await app.close();
  await origin.close();
  await trap.close();
});
beforeEach(() => {
  origin.reset();
  resolved.length = 0;
});

async function expectBlocked(url: string, category: "video" | "image" = "video") {
  const res = await processRequest(app, { url, category, stages: ["metadata", "thumbnail"] });
  expect(res.statusCode, res.body).toBe(403);
  expect(RunnerErrorBody.parse(res.json()).error.code).toBe("SSRF_BLOCKED");
  expect(trap.connections()).toBe(0);
}

describe("denied addresses are refused before connecting", () => {
  it("refuses a denied IP literal", async () => {
    await expectBlocked(`http://127.0.0.2:${trap.port}/files/h264-aac-faststart.mp4`);
  });

  it("refuses the allow-listed address on another port (entries are address:port)", async () => {
    await expectBlocked(`http://127.0.0.1:${trap.port}/x`);
  });

  it("refuses a host name whose DNS answer is denied, after resolving it", async () => {
    await expectBlocked(`http://evil.example.com:${trap.port}/files/h264-aac-faststart.mp4`);
    expect(resolved).toContain("evil.example.com");
    await expectBlocked(`http://private.example.com:${trap.port}/x`);
  });

  it("refuses a host name when any of its addresses is denied", async () => {
    await expectBlocked(`http://mixed.example.com:${trap.port}/x`);
  });

  it("refuses names that never leave the machine without resolving them", async () => {
    await expectBlocked(`http://localhost:${trap.port}/x`);
    await expectBlocked(`http://metadata.google.internal/computeMetadata/v1/`);
    expect(resolved).toEqual([]);
  });

  it("refuses a redirect hop to a denied address, with no connection made to it", async () => {
    const to = `http://127.0.0.2:${trap.port}/files/h264-aac-faststart.mp4`;
    await expectBlocked(`${origin.url}/redirect/1?to=${encodeURIComponent(to)}`);
    expect(origin.stats.requests.length).toBe(1);
  });

  it("refuses the third hop of a redirect chain that ends at a host name resolving to a denied address", async () => {
    const to = `http://evil.example.com:${trap.port}/files/tone.mp3`;
    await expectBlocked(`${origin.url}/redirect/3?to=${encodeURIComponent(to)}`);
    expect(origin.stats.requests.length).toBe(3);
  });

  it("refuses a redirect to another scheme", async () => {
    const res = await processRequest(app, { url: `${origin.url}/redirect/1?to=${encodeURIComponent("file:///etc/passwd")}`, category: "video", stages: ["metadata"] });
    expect(res.statusCode).toBe(403);
  });
});

describe("allowed fetches", () => {
  it("follows redirects (each hop checked) and reads through DNS to the allow-listed origin", async () => {
    const to = `http://media.example.com:${origin.port}/files/h264-aac-moov-end.mp4`;
    const res = await processRequest(app, { url: `${origin.url}/redirect/2?to=${encodeURIComponent(to)}`, category: "video", stages: ["metadata", "thumbnail"] });
    expect(res.statusCode, res.body).toBe(200);
    expect(RunnerResponse.parse(res.json()).metadata?.video?.codec).toBe("h264");
    expect(resolved).toContain("media.example.com");
  });

  it("ffmpeg never reaches the origin itself, and no identifying header is passed on", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/v1/process",
      headers: { authorization: `Bearer ${testToken}`, cookie: "session=secret", "x-forwarded-for": "203.0.113.9", "user-agent": "caller/1" },
      payload: { url: `${origin.url}/files/h264-aac-moov-end.mp4`, category: "video", stages: ["metadata", "thumbnail"] },
    });
    expect(res.statusCode).toBe(200);
    expect(origin.stats.requests.length).toBeGreaterThan(1);
    for (const { headers } of origin.stats.requests) {
      expect(headers["user-agent"]).toBe("media-inspect-runner/1");
      for (const name of ["cookie", "authorization", "x-forwarded-for", "icy-metadata", "referer", "forwarded"]) {
        expect(headers[name], name).toBeUndefined();
      }
    }
  });

  it("stops after 5 redirects with 502 BAD_GATEWAY", async () => {
    const to = `${origin.url}/files/tone.mp3`;
    const ok = await processRequest(app, { url: `${origin.url}/redirect/5?to=${encodeURIComponent(to)}`, category: "audio", stages: ["metadata"] });
    expect(ok.statusCode).toBe(200);
    const res = await processRequest(app, { url: `${origin.url}/redirect/6?to=${encodeURIComponent(to)}`, category: "audio", stages: ["metadata"] });
    expect(res.statusCode).toBe(502);
    expect(RunnerErrorBody.parse(res.json()).error.code).toBe("BAD_GATEWAY");
  });
});

describe("origin failures and limits", () => {
  it("maps an origin 404 to 404 RESOURCE_NOT_FOUND and a 500 to 502 BAD_GATEWAY", async () => {
    const missing = await processRequest(app, { url: `${origin.url}/files/nope.mp4`, category: "video", stages: ["metadata"] });
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, "RESOURCE_NOT_FOUND"]);
    const broken = await processRequest(app, { url: `${origin.url}/status/500`, category: "video", stages: ["metadata"] });
    expect([broken.statusCode, broken.json().error.code]).toEqual([502, "BAD_GATEWAY"]);
  });

  it("gives 408 UPSTREAM_TIMEOUT when the origin is slower than the deadline, headers or body", async () => {
    const hasty = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, RUNNER_FETCH_TIMEOUT_MS: "300" });
    try {
      const slow = await processRequest(hasty, { url: `${origin.url}/slow/2000/tone.mp3`, category: "audio", stages: ["metadata"] });
      expect([slow.statusCode, slow.json().error.code]).toEqual([408, "UPSTREAM_TIMEOUT"]);
      const stalled = await processRequest(hasty, { url: `${origin.url}/stall/large.png`, category: "image", stages: ["metadata"] });
      expect([stalled.statusCode, stalled.json().error.code]).toEqual([408, "UPSTREAM_TIMEOUT"]);
    } finally {
      await hasty.close();
    }
  });

  it("gives 413 PAYLOAD_TOO_LARGE from the announced size, and from streamed bytes when no size is sent", async () => {
    const tight = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, RUNNER_MAX_SOURCE_BYTES: "300000" });
    try {
      const announced = await processRequest(tight, { url: `${origin.url}/files/large.png`, category: "image", stages: ["metadata"] });
      expect([announced.statusCode, announced.json().error.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
      origin.reset();
      const streamed = await processRequest(tight, { url: `${origin.url}/norange/large.png`, category: "image", stages: ["metadata"] });
      expect([streamed.statusCode, streamed.json().error.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
      // The stream was cut near the cap, not read to the end.
      expect(origin.stats.bytes).toBeLessThan(2_382_090);
    } finally {
      await tight.close();
    }
  });

  it("works with an origin that ignores Range (full GETs, skipped to the wanted offset)", async () => {
    const res = await processRequest(app, { url: `${origin.url}/norange/h264-aac-moov-end.mp4`, category: "video", stages: ["metadata", "thumbnail"] });
    expect(res.statusCode, res.body).toBe(200);
    expect(RunnerResponse.parse(res.json()).metadata?.video?.width).toBe(640);
  });
});
