// The runner's own pure-JS decoders run in worker threads: a 12-bit LZW TIFF whose every strip replays the same
// run of clear codes (testkit/hostile-tiff.ts: seconds to minutes of decoding, from a 1 MB file) is cut off at
// the process time limit, and while it decodes the runner answers /v1/health and finishes another job's picture.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { RunnerHealth, RunnerResponse } from "../../shared/shapes/runner.ts";
import { clearCodeTiff } from "../../testkit/hostile-tiff.ts";
import { makeMissing } from "../../testkit/make-missing.ts";
import { processRequest, testApp } from "../../testkit/runner/harness.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { ensureLongtailFixtures } from "../../testkit/longtail-image-fixtures.ts";

let origin: LoopbackOrigin;
let app: RunnerApp;

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, "..", ".fixtures");
  const hostileDir = join(fixtures, "hostile-decoders");
  makeMissing(hostileDir, ["clear-codes-12bit.tif"], (_file, partial) => writeFileSync(partial, clearCodeTiff(1000, 50_000, 1024 * 1024)));
  const longtail = ensureLongtailFixtures(join(fixtures, "longtail"));
  origin = await startLoopbackOrigin([hostileDir, longtail]);
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, RUNNER_PROCESS_TIMEOUT_MS: "3000" });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await origin?.close();
});

const thumbnail = (file: string) =>
  processRequest(app, { url: `${origin.url}/files/${file}`, category: "image", stages: ["metadata", "thumbnail"] as never });

describe("decoder threads", () => {
  it("a hostile 12-bit TIFF is cut off at the time limit while health and another picture are answered", async () => {
    let hostileDone = false;
    const hostile = thumbnail("clear-codes-12bit.tif").then((res) => { hostileDone = true; return res; });
    // Health answers while the hostile picture decodes: the event loop is free.
    const answeredDuring: boolean[] = [];
    for (let i = 0; i < 5 && !hostileDone; i++) {
      const res = await app.inject({ method: "GET", url: "/v1/health" });
      expect(res.statusCode).toBe(200);
      RunnerHealth.parse(res.json());
      answeredDuring.push(!hostileDone);
      await new Promise((r) => setTimeout(r, 200));
    }
    // A BC7 texture, decoded by the other thread, completes before the hostile one is cut off.
    const other = await thumbnail("lt-bc7.dds");
    const otherBeforeHostile = !hostileDone;
    expect(other.statusCode, other.body).toBe(200);
    expect(RunnerResponse.parse(other.json()).stages?.thumbnail).toMatchObject({ status: "done" });
    const res = await hostile;
    expect(answeredDuring.filter(Boolean).length).toBeGreaterThan(0);
    expect(otherBeforeHostile).toBe(true);
    // The runner's answer for a picture past the time limit, as for an engine that ran past it (run-process.ts):
    // PROCESSING_TIMEOUT, which the Worker turns into the stage's failure.
    expect(res.statusCode, res.body).toBe(504);
    expect(res.json()).toMatchObject({ status: "error", error: { code: "PROCESSING_TIMEOUT", message: "the image took too long to decode" } });
  }, 120_000);
});
