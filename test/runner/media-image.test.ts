import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { RunnerErrorBody, RunnerResponse } from "../../shared/shapes/runner.ts";
import { decodeThumbnail, processRequest, startAppWithOrigin, testApp } from "../../testkit/runner/harness.ts";
import type { LoopbackOrigin } from "../../testkit/loopback-origin.ts";

const dir = inject("runnerFixturesDir");
let origin: LoopbackOrigin;
let app: RunnerApp;
let close: () => Promise<void>;

beforeAll(async () => ({ origin, app, close } = await startAppWithOrigin()));
afterAll(() => close());

const allStages = ["metadata", "thumbnail", "placeholder", "palette"] as const;

describe("large images", () => {
  it("a 6000x4000 PNG gives image metadata, a decodable thumbnail, a blurhash and a colour", async () => {
    origin.reset();
    const res = await processRequest(app, { url: `${origin.url}/files/large.png`, category: "image", stages: [...allStages] });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.image).toEqual({ colorSpace: "srgb", hasAlpha: false, width: 6000, height: 4000, frames: 1 });
    expect(result.thumbnail).toMatchObject({ width: 320, height: 213, contentType: "image/webp" });
    const decoded = await decodeThumbnail(result.thumbnail!.base64);
    expect([decoded.format, decoded.width, decoded.height]).toEqual(["webp", 320, 213]);
    expect(decoded.brightness).toBeGreaterThan(30);
    expect(result.placeholder?.value.length).toBeGreaterThan(20);
    expect(result.dominantColor).toMatch(/^#[0-9a-f]{6}$/);
    expect(result.bytesFetched).toBe(origin.stats.bytes);
  });

  it("decodes a picture held in memory (size known) and one streamed to a file (no length given) alike", async () => {
    const [sized, chunked] = await Promise.all(["files", "norange"].map(async (route) => {
      const res = await processRequest(app, { url: `${origin.url}/${route}/alpha.png`, category: "image", stages: [...allStages] });
      expect(res.statusCode, res.body).toBe(200);
      return RunnerResponse.parse(res.json());
    }));
    expect(sized!.metadata).toEqual(chunked!.metadata);
    expect(sized!.thumbnail?.base64).toBe(chunked!.thumbnail?.base64);
    expect(sized!.placeholder).toEqual(chunked!.placeholder);
    expect(sized!.dominantColor).toBe(chunked!.dominantColor);
  });

  it("reports alpha for a translucent PNG and keeps it in the thumbnail", async () => {
    const res = await processRequest(app, { url: `${origin.url}/files/alpha.png`, category: "image", stages: ["metadata", "thumbnail"] });
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.image).toMatchObject({ hasAlpha: true, width: 400, height: 300 });
    const decoded = await decodeThumbnail(result.thumbnail!.base64);
    expect([decoded.width, decoded.height]).toEqual([320, 240]);
  });

  it("refuses a decompression-bomb PNG from its header with 422 IMAGE_TOO_LARGE, without decoding it", async () => {
    origin.reset();
    const started = performance.now();
    const res = await processRequest(app, { url: `${origin.url}/files/bomb.png`, category: "image", stages: [...allStages] });
    expect(res.statusCode).toBe(422);
    const body = RunnerErrorBody.parse(res.json());
    expect(body.error.code).toBe("IMAGE_TOO_LARGE");
    expect(body.error.message).toContain("60000x60000");
    expect(performance.now() - started).toBeLessThan(2_000);
    // The file is larger than the first block, and only that block was read: the header check comes
    // before the download.
    const { size } = await stat(join(dir, "bomb.png"));
    expect(size).toBeGreaterThan(256 * 1024);
    expect(origin.stats.bytes).toBeLessThanOrEqual(256 * 1024);
  });

  it("refuses by the pixel limit from configuration", async () => {
    const strict = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, RUNNER_MAX_DECODE_PIXELS: "100000" });
    try {
      const res = await processRequest(strict, { url: `${origin.url}/files/alpha.png`, category: "image", stages: ["thumbnail"] });
      expect(res.statusCode).toBe(422);
      expect(RunnerErrorBody.parse(res.json()).error.code).toBe("IMAGE_TOO_LARGE");
    } finally {
      await strict.close();
    }
  });

  it("gives 422 CORRUPT_MEDIA or UNSUPPORTED_MEDIA for bytes that are no image", async () => {
    const res = await processRequest(app, { url: `${origin.url}/files/corrupt.mp4`, category: "image", stages: ["metadata"] });
    expect(res.statusCode).toBe(422);
    expect(["CORRUPT_MEDIA", "UNSUPPORTED_MEDIA"]).toContain(RunnerErrorBody.parse(res.json()).error.code);
  });

  it("leaves no temporary files behind", async () => {
    const { readdir } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const before = (await readdir(tmpdir())).filter((name) => name.startsWith("media-runner-"));
    await processRequest(app, { url: `${origin.url}/files/large.png`, category: "image", stages: ["thumbnail"] });
    await processRequest(app, { url: `${origin.url}/files/corrupt.mp4`, category: "image", stages: ["thumbnail"] });
    const after = (await readdir(tmpdir())).filter((name) => name.startsWith("media-runner-"));
    expect(after).toEqual(before);
  });
});
