// MP4 edit lists in the runner: its duration is ffprobe's (format.duration, else the video stream's, which
// ffprobe gives with the edits applied), on files ffmpeg makes (testkit/edit-list-fixtures.ts) served over
// loopback. The file without a movie duration is where the edit list is the only measure: the media runs 6 s,
// the edit presents 4.7 s of it.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { ensureEditListFixtures } from "../../testkit/edit-list-fixtures.ts";
import { ffprobeFile, processRequest, runnerOverFolder } from "../../testkit/runner/harness.ts";

const dir = join(tmpdir(), "media-inspect-edit-lists");
const runner = runnerOverFolder(() => {
  ensureEditListFixtures(dir);
  return dir;
});

describe("edit lists in the runner's durations", () => {
  it.each([
    ["cut-at-1.3s.mp4", 4.7],
    ["no-mvhd-cut-at-1.3s.mp4", 4.7],
    ["cut-2.5s-for-2s.mp4", 2.02],
    ["no-mvhd-cut-2.5s-for-2s.mp4", 2.02],
  ])("%s: %s s, the edited length, not the media's", async (file, expected) => {
    const res = await processRequest(runner.app(), { url: runner.fileUrl(file), category: "video", stages: ["metadata"] });
    expect(res.statusCode, res.body).toBe(200);
    const video = RunnerResponse.parse(res.json()).metadata?.video;
    expect(video?.duration?.seconds).toBeCloseTo(expected, 2);
    const ref = await ffprobeFile(join(dir, file));
    const stream = ref.streams.find((s) => s.codec_type === "video")!;
    expect(video?.duration?.seconds).toBeCloseTo(Number(ref.format.duration) || Number(stream.duration), 2);
  });
});
