// The runner on raw H.264/HEVC byte streams and Ogg video: ffprobe's metadata and a thumbnail from ffmpeg's
// h264/hevc/ogg demuxers, read through the loopback proxy. Files from testkit/longtail-more-fixtures.ts.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { ensureLongtailMoreFixtures } from "../../testkit/longtail-more-fixtures.ts";
import { processRequest, runnerOverFolder } from "../../testkit/runner/harness.ts";

const runner = runnerOverFolder(() => ensureLongtailMoreFixtures(join(import.meta.dirname, "..", ".fixtures", "longtail-more")));

describe("raw streams and Ogg video in the runner", () => {
  it.each([
    ["lt-raw-main.h264", "h264", 176, 144, 25],
    ["lt-raw-high.264", "h264", 180, 120, 29.97],
    ["lt-raw-main.hevc", "hevc", 176, 144, 25],
    ["lt-raw-main10.265", "hevc", 200, 100, 24],
    ["lt-theora.ogv", "theora", 176, 144, 25],
    ["lt-vp8.ogv", "vp8", 176, 144, 24],
  ] as const)("%s: %s metadata and a thumbnail", async (file, codec, width, height, fps) => {
    const res = await processRequest(runner.app(), { url: runner.fileUrl(file), category: "video", stages: ["metadata", "thumbnail"] as never });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages).toMatchObject({ metadata: { status: "done" }, thumbnail: { status: "done" } });
    expect(result.metadata?.video).toMatchObject({ codec, width, height });
    expect(result.metadata?.video?.fps).toBeCloseTo(fps, 2);
    expect(result.thumbnail?.width).toBeGreaterThan(0);
  });
});
