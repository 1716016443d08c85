// Issue 24 item 4: storyboard and waveform are opt-in stages. Asked for once (expand), they are registered on
// the record and stay part of it: processing counts them for every profile, and the projection shows them.
import { describe, expect, it } from "vitest";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { InspectQuery } from "../../shared/schemas/inspect.ts";
import { registeredStages, stagesFor } from "../../shared/stages/index.ts";
import { deriveProcessing, project } from "../../shared/projection/index.ts";
import { storyboardPlan, storyboardTileHeight, storyboardVtt } from "../../shared/media/storyboard-plan.ts";
import { createRecord } from "../../worker/record/create-record.ts";
import { applyRunnerOutcome } from "../../worker/record/runner-results.ts";
import { finishStage, pendingStages, registerOptIn, reviseCategory } from "../../worker/record/stage-state.ts";
import { parseVtt } from "../../testkit/vtt.ts";

function recordOf(category: "video" | "audio"): ResourceRecord {
  const mime = category === "video" ? "video/mp4" : "audio/mp4";
  const record = createRecord({
    key: "0".repeat(64), url: "https://cdn.example.com/a", normalizedUrl: "https://cdn.example.com/a", category,
    probe: { finalUrl: "https://cdn.example.com/a", status: 206, mime, streamable: true, bytesFetched: 4100, redirects: 0, headers: {}, evidence: [`bytes:${mime}`] },
    ttlSeconds: 60, now: Date.now(),
  });
  for (const stage of stagesFor(category)) finishStage(record, stage, { state: "done", engine: "edge" });
  return record;
}

/** A runner answer as the consumer hands it over (previews already stored in R2). */
function runnerAnswer(body: unknown) {
  const { thumbnail: _stored, ...rest } = RunnerResponse.parse(body);
  return rest;
}

const profiles = ["fast", "standard", "full"] as const;
const storyboard = { url: "/api/v1/thumbnails/x-storyboard-160x90.webp", vtt: "/api/v1/storyboards/x-160x90.vtt", tiles: 30, columns: 10, tileWidth: 160, tileHeight: 90, interval: 1 };

describe("opt-in stages", () => {
  it("are not registered until asked for: a complete video stays complete and shows no storyboard", () => {
    const record = recordOf("video");
    expect(registeredStages(record)).not.toContain("preview:storyboard");
    expect(deriveProcessing(record).status).toBe("complete");
    const view = project(record, { profile: "full", responseSource: "cache" });
    if (!("processing" in view)) throw new Error("not an inspect response");
    expect(view.data.preview?.storyboard).toBeUndefined();
  });

  it("expand=storyboard registers it pending on a video, identically for every profile, until the runner's answer", () => {
    const record = recordOf("video");
    expect(registerOptIn(record, ["storyboard", "waveform"])).toEqual(["preview:storyboard"]);
    expect(registerOptIn(record, ["storyboard"])).toEqual([]); // once
    expect(pendingStages(record)).toEqual(["preview:storyboard"]);
    for (const profile of profiles) {
      const view = project(record, { profile, responseSource: "cache" });
      if (!("processing" in view)) throw new Error("not an inspect response");
      expect(view.processing).toMatchObject({ status: "partial", pendingStages: ["preview:storyboard"] });
    }
    const pending = project(record, { profile: "full", responseSource: "cache" });
    expect("processing" in pending && pending.data.preview?.storyboard).toBeNull();
    applyRunnerOutcome(record, {
      stages: ["preview:storyboard"],
      result: { ...runnerAnswer({ timings: { total: 5 }, stages: { storyboard: { status: "done" } } }), storedStoryboard: storyboard },
    });
    const done = project(record, { profile: "standard", responseSource: "cache" });
    if (!("processing" in done)) throw new Error("not an inspect response");
    expect(done.processing.status).toBe("complete");
    expect(done.processing.completedStages).toContain("preview:storyboard");
    expect(done.data.preview?.storyboard).toEqual(storyboard);
  });

  it("the storyboard's own bytes, requests and method from the runner show in diagnostics.stages (full profile)", () => {
    const record = recordOf("video");
    registerOptIn(record, ["storyboard"]);
    applyRunnerOutcome(record, {
      stages: ["preview:storyboard"],
      result: {
        ...runnerAnswer({
          timings: { total: 5, storyboard: 4 }, bytesFetched: 3_300_000, requests: 35,
          stages: { storyboard: { status: "done", bytesPulled: 2_834_228, requests: 29, method: "keyframes-by-range" } },
        }),
        storedStoryboard: storyboard,
      },
    });
    const view = project(record, { profile: "full", responseSource: "cache" });
    if (!("processing" in view)) throw new Error("not an inspect response");
    expect(view.data.diagnostics?.stages?.["preview:storyboard"]).toMatchObject({
      state: "done", engine: "runner", bytesPulled: 2_834_228, requests: 29, method: "keyframes-by-range",
    });
    // Stages that report nothing of their own carry no such fields.
    expect(view.data.diagnostics?.stages?.["metadata:video"] ?? {}).not.toHaveProperty("bytesPulled");
  });

  it("expand=waveform on audio: preview.waveform and metadata.audio.loudness once done; the reserved null before", () => {
    const record = recordOf("audio");
    record.results.audio = { duration: { seconds: 30, formatted: "0:30" }, codec: "aac" };
    const before = project(record, { profile: "full", responseSource: "cache" });
    expect("processing" in before && before.data.preview?.waveform).toBeNull();
    expect(registerOptIn(record, ["storyboard", "waveform"])).toEqual(["preview:waveform"]);
    const peaks = Array.from({ length: 300 }, (_, i) => (i % 10) / 10);
    const loudness = { integratedLufs: -20.1, rangeLu: 6.2, truePeakDbtp: -4.3 };
    applyRunnerOutcome(record, {
      stages: ["preview:waveform"],
      result: runnerAnswer({ timings: { total: 5 }, waveform: { peaks, perSecond: 10 }, loudness, stages: { waveform: { status: "done" } } }),
    });
    const view = project(record, { profile: "full", responseSource: "cache" });
    if (!("processing" in view)) throw new Error("not an inspect response");
    expect(view.processing.status).toBe("complete");
    expect(view.data.preview?.waveform).toEqual({ peaks, perSecond: 10 });
    expect(view.data.metadata?.audio?.loudness).toEqual(loudness);
  });

  it("a failed opt-in stage is listed in failedStages and its field is omitted", () => {
    const record = recordOf("video");
    registerOptIn(record, ["storyboard"]);
    applyRunnerOutcome(record, {
      stages: ["preview:storyboard"],
      result: runnerAnswer({ timings: { total: 5 }, stages: { storyboard: { status: "failed", reason: "CORRUPT_MEDIA: no frame" } } }),
    });
    const view = project(record, { profile: "full", responseSource: "cache" });
    if (!("processing" in view)) throw new Error("not an inspect response");
    expect(view.processing.failedStages).toEqual(["preview:storyboard"]);
    expect(view.data.preview?.storyboard).toBeUndefined();
  });

  it("survive a category revision only where they apply", () => {
    const record = recordOf("video");
    registerOptIn(record, ["storyboard"]);
    reviseCategory(record, "audio", { source: "ffprobe" });
    expect(record.stages["preview:storyboard"]).toBeUndefined();
  });

  it("expand lists storyboard and waveform (OpenAPI enum)", () => {
    expect(InspectQuery.parse({ expand: "storyboard,waveform" }).expand).toEqual(["storyboard", "waveform"]);
  });
});

describe("storyboard plan and track", () => {
  it("at most 100 tiles, 10 columns, the interval rounded up to a step", () => {
    expect(storyboardPlan(30)).toEqual({ interval: 1, tiles: 30, columns: 10 });
    expect(storyboardPlan(4)).toEqual({ interval: 1, tiles: 4, columns: 4 });
    expect(storyboardPlan(600)).toEqual({ interval: 10, tiles: 60, columns: 10 });
    expect(storyboardPlan(7200)).toEqual({ interval: 120, tiles: 60, columns: 10 });
    expect(storyboardPlan(150)).toEqual({ interval: 2, tiles: 75, columns: 10 });
    expect(storyboardTileHeight(1920, 1080)).toBe(90);
    expect(storyboardTileHeight(1080, 1920)).toBe(284);
    expect(storyboardTileHeight(10_000, 1)).toBe(16);
  });

  it("the WebVTT track has one cue per tile, interval long, each #xywh inside the sprite", () => {
    const grid = { tiles: 23, columns: 10, tileWidth: 160, tileHeight: 90, interval: 5 };
    const cues = parseVtt(storyboardVtt(grid, "/s.webp"));
    expect(cues).toHaveLength(23);
    expect(cues[22]).toEqual({ start: 110, end: 115, text: "/s.webp#xywh=320,180,160,90" });
    expect(cues[10]!.text).toBe("/s.webp#xywh=0,90,160,90");
  });
});
