/** POST /v1/process with a stream plan: previews from one early segment of HLS (TS, fMP4, AES-128) and DASH. */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { startLoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { generateStreamFixtures } from "../../testkit/stream-fixtures.ts";
import { decodeThumbnail, processRequest, testApp } from "../../testkit/runner/harness.ts";

const dir = join(import.meta.dirname, "..", ".fixtures", "streams");
let origin: Awaited<ReturnType<typeof startLoopbackOrigin>>;
let app: RunnerApp;
const stages = ["thumbnail", "placeholder", "palette"] as const;

beforeAll(async () => {
  await generateStreamFixtures(dir);
  origin = await startLoopbackOrigin([dir]);
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
}, 120_000);
afterAll(async () => {
  await app.close();
  await origin.close();
});

const at = (path: string) => `${origin.url}/media/${path}`;

describe("stream previews", () => {
  it("HLS: the lowest variant's first TS segment, and no other segment", async () => {
    origin.stats.requests.length = 0;
    const res = await processRequest(app, {
      url: at("hls/master.m3u8"), category: "video", stages: [...stages],
      stream: { protocol: "hls", playlistUrl: at("hls/v1/index.m3u8"), segmentUrl: at("hls/v1/seg0.ts") },
    });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages).toEqual({ thumbnail: { status: "done" }, placeholder: { status: "done" }, palette: { status: "done" } });
    const thumb = await decodeThumbnail(result.thumbnail!.base64);
    // The 240x136 variant (not the 480x270 one); square pixels may round its width by one.
    expect(thumb.height).toBe(136);
    expect(Math.abs(thumb.width! - 240)).toBeLessThanOrEqual(1);
    expect(result.placeholder?.type).toBe("blurhash");
    const paths = origin.stats.requests.map((r) => r.path);
    expect(new Set(paths)).toEqual(new Set(["/media/hls/v1/index.m3u8", "/media/hls/v1/seg0.ts"]));
  });

  it("HLS AES-128: the key is fetched through the proxy and the segment decrypted", async () => {
    const res = await processRequest(app, {
      url: at("enc/index.m3u8"), category: "video", stages: ["thumbnail"],
      stream: { protocol: "hls", playlistUrl: at("enc/index.m3u8"), segmentUrl: at("enc/seg0.ts"), encryption: "AES-128" },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(RunnerResponse.parse(res.json()).stages?.thumbnail?.status).toBe("done");
  });

  it("DASH: init and first segment of the lowest representation", async () => {
    origin.stats.requests.length = 0;
    const res = await processRequest(app, {
      url: at("dash/manifest.mpd"), category: "video", stages: ["thumbnail"],
      stream: { protocol: "dash", segmentUrl: at("dash/chunk-stream1-00001.m4s"), initUrl: at("dash/init-stream1.m4s") },
    });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    const thumb = await decodeThumbnail(result.thumbnail!.base64);
    // The 240x136 variant (not the 480x270 one); square pixels may round its width by one.
    expect(thumb.height).toBe(136);
    expect(Math.abs(thumb.width! - 240)).toBeLessThanOrEqual(1);
    expect(new Set(origin.stats.requests.map((r) => r.path))).toEqual(new Set(["/media/dash/init-stream1.m4s", "/media/dash/chunk-stream1-00001.m4s"]));
  });

  it("a plan naming a private address fails the previews with SSRF_BLOCKED, quickly", async () => {
    const started = performance.now();
    const res = await processRequest(app, {
      url: at("hls/master.m3u8"), category: "video", stages: ["thumbnail"],
      stream: { protocol: "dash", segmentUrl: "http://10.0.0.5/seg.m4s" },
    });
    expect(performance.now() - started).toBeLessThan(10_000);
    const body = res.json();
    const reason = res.statusCode === 200 ? RunnerResponse.parse(body).stages?.thumbnail?.reason : body.error.code;
    expect(reason).toMatch(/SSRF_BLOCKED/);
  });

  it("a plan naming a file: URL is refused as an invalid payload", async () => {
    const res = await processRequest(app, {
      url: at("hls/master.m3u8"), category: "video", stages: ["thumbnail"],
      stream: { protocol: "hls", playlistUrl: "file:///etc/passwd", segmentUrl: at("hls/v1/seg0.ts") },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe("INVALID_PAYLOAD");
  });
});
