// Issue 23 items 3 and 4 in the runner: ffprobe's coded size, the sample aspect ratio and the displayed size it
// implies, and `sources` saying every fact came from the decoder. Scored on an anamorphic file ffmpeg makes.
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureHeaderFixtures } from "../../testkit/header-fixtures.ts";
import { audioStream, toAudioMetadata, toVideoMetadata, videoStream } from "../../media-runner/src/media/metadata.ts";
import type { FfprobeOutput } from "../../media-runner/src/media/ffprobe.ts";

const dir = join(tmpdir(), "media-inspect-header-fixtures");
const probe = (file: string) => JSON.parse(execFileSync(process.env.FFPROBE_PATH ?? "ffprobe",
  ["-v", "quiet", "-of", "json", "-show_format", "-show_streams", join(dir, file)]).toString("utf8")) as FfprobeOutput;

beforeAll(() => { ensureHeaderFixtures(dir); }, 120_000);

describe("runner metadata: sizes and sources", () => {
  it("an anamorphic MP4 reports coded 720x576, SAR 64:45 and the 1024x576 a player shows", () => {
    const p = probe("anamorphic.mp4");
    const video = toVideoMetadata(p, videoStream(p)!);
    expect(video).toMatchObject({ width: 1024, height: 576, codedWidth: 720, codedHeight: 576, sampleAspectRatio: "64:45", fps: 25 });
    expect(video.sources).toEqual({ duration: "decoder", fps: "decoder", dimensions: "decoder", bitrate: "decoder" });
  });

  it("fps is the declared rate (r_frame_rate), as the edge reads it, not the average a long last frame drags down", () => {
    const p = probe("long-last-frame.mp4");
    const stream = videoStream(p)!;
    expect([stream.r_frame_rate, stream.avg_frame_rate]).toEqual(["30/1", "6/1"]);
    expect(toVideoMetadata(p, stream).fps).toBe(30);
  });

  it("square pixels carry no sample aspect ratio; audio facts name the decoder", () => {
    const p = probe("video.avi");
    const video = toVideoMetadata(p, videoStream(p)!);
    expect(video).toMatchObject({ width: 320, height: 240, codedWidth: 320, codedHeight: 240 });
    expect(video).not.toHaveProperty("sampleAspectRatio");
    const audio = toAudioMetadata(p, audioStream(p)!);
    expect(audio.sources).toEqual({ duration: "decoder", bitrate: "decoder", sampleRate: "decoder" });
  });
});
