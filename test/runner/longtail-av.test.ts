// Segments and animations the runner previews: an MPEG-TS whose clock rolls over 2^33, one cut before its first
// keyframe, an FLC animation (ffmpeg's flic demuxer), and an fMP4 initialization segment, whose tracks read and
// whose frame does not exist. Files from testkit/longtail-av-fixtures.ts on a loopback origin.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { ensureLongtailAvFixtures } from "../../testkit/longtail-av-fixtures.ts";
import { processRequest, runnerOverFolder } from "../../testkit/runner/harness.ts";

const runner = runnerOverFolder(() => ensureLongtailAvFixtures(join(import.meta.dirname, "..", ".fixtures", "longtail-av")));

const run = async (file: string, stages: string[]) => {
  const res = await processRequest(runner.app(), { url: runner.fileUrl(file), category: "video", stages: stages as never });
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
