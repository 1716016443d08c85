// Segments and animations the runner previews: an MPEG-TS whose clock rolls over 2^33, one cut before its first
// keyframe, an FLC animation (ffmpeg's flic demuxer), and an fMP4 initialization segment, whose tracks read and
// whose frame does not exist. Files from testkit/longtail-av-fixtures.ts on a loopback origin.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { ensureLongtailAvFixtures } from "../../testkit/longtail-av-fixtures.ts";
import { processRequest, testApp } from "../../testkit/runner/harness.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";

let origin: LoopbackOrigin;
let app: RunnerApp;

beforeAll(async () => {
  const dir = ensureLongtailAvFixtures(join(import.meta.dirname, "..", ".fixtures", "longtail-av"));
  origin = await startLoopbackOrigin([dir]);
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await origin?.close();
});

const run = async (file: string, stages: string[]) => {
  const res = await processRequest(app, { url: `${origin.url}/files/${file}`, category: "video", stages: stages as never });
  expect(res.statusCode, res.body).toBe(200);
  return RunnerResponse.parse(res.json());
};

describe("video previews of segments and animations", () => {
  it.each(["lt-rollover.ts", "lt-before-keyframe.ts", "lt-anim.flc"])("%s: metadata and a thumbnail", async (file) => {
    const result = await run(file, ["metadata", "thumbnail"]);
    expect(result.stages).toMatchObject({ metadata: { status: "done" }, thumbnail: { status: "done" } });
    expect(result.thumbnail?.width).toBeGreaterThan(0);
    expect(result.metadata?.video?.fps).toBe(25);
  });

  it("an initialization segment: tracks and codecs from ffprobe, no duration, and the thumbnail ends with the reason", async () => {
    const result = await run("lt-init.mp4", ["metadata", "thumbnail"]);
    expect(result.metadata?.video).toMatchObject({ width: 320, height: 240, codec: "h264" });
    expect(result.metadata?.video?.duration).toBeUndefined();
    expect(result.stages?.thumbnail).toMatchObject({ status: "skipped", reason: expect.stringMatching(/initialization segment/) });
  });
});
