/**
 * A previews-only video job with the edge's duration (what a `full` inspection sends when the edge read the
 * metadata) runs one engine: the frame. ffprobe runs only when no frame decodes, to say what the file is.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { processRequest, startAppWithOrigin } from "../../testkit/runner/harness.ts";
import type { LoopbackOrigin } from "../../testkit/loopback-origin.ts";

let origin: LoopbackOrigin;
let app: RunnerApp;
let close: () => Promise<void>;

beforeAll(async () => ({ origin, app, close } = await startAppWithOrigin()));
afterAll(() => close());

const previews = ["thumbnail", "placeholder", "palette"] as const;

describe("previews without metadata, duration known", () => {
  it("a video: the frame alone, no ffprobe run", async () => {
    const res = await processRequest(app, { url: `${origin.url}/files/h264-aac-moov-end.mp4`, category: "video", stages: [...previews], durationHint: 4 });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.detected).toEqual({ category: "video", source: "ffmpeg" });
    expect(result.thumbnail?.width).toBe(320);
    expect(result.placeholder).toBeDefined();
    expect(result.stages).toEqual({ thumbnail: { status: "done" }, placeholder: { status: "done" }, palette: { status: "done" } });
    expect(result.timings.frame).toBeDefined();
    expect(result.timings.metadata).toBeUndefined();
  });

  it("audio asked as video: no frame decodes, ffprobe says audio and the previews are skipped", async () => {
    const res = await processRequest(app, { url: `${origin.url}/files/tone.mp3`, category: "video", stages: ["thumbnail"], durationHint: 3 });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.detected).toEqual({ category: "audio", source: "ffprobe" });
    expect(result.thumbnail).toBeUndefined();
    expect(result.stages?.thumbnail?.status).toBe("skipped");
  });

  it("a file no engine can read still fails as corrupt media (422)", async () => {
    const res = await processRequest(app, { url: `${origin.url}/files/corrupt.mp4`, category: "video", stages: ["thumbnail"], durationHint: 3 });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe("CORRUPT_MEDIA");
  });
});
