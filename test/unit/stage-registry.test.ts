// Issue 9 item 1: the stage registry and the stage state machine. Pure functions over a record: the same
// ones the Durable Object, the queue consumer and the edge pipeline call.
import { describe, expect, it } from "vitest";
import { ResourceRecord } from "../../shared/schemas/record.ts";
import { StageName, mediaCategories, stagesByCategory } from "../../shared/schemas/stages.ts";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { runnerStagesOf, stageDefinition, stageRegistry, stagesFor, stagesInGroup } from "../../shared/stages/index.ts";
import { deriveProcessing, project } from "../../shared/projection/index.ts";
import { createRecord } from "../../worker/record/create-record.ts";
import { applyRunnerOutcome } from "../../worker/record/runner-results.ts";
import {
  applyEngineResult, failStages, finishStage, isComplete, markQueued, markStarted, noteRetry, pendingStages, reviseCategory, shortReason,
} from "../../worker/record/stage-state.ts";

function recordOf(category: (typeof mediaCategories)[number], mime = "video/webm"): ResourceRecord {
  const record = createRecord({
    key: "0".repeat(64), url: "https://cdn.example.com/a", normalizedUrl: "https://cdn.example.com/a", category,
    probe: { finalUrl: "https://cdn.example.com/a", status: 206, mime, streamable: true, bytesFetched: 4100, redirects: 0, headers: {}, evidence: [`bytes:${mime}`] },
    ttlSeconds: 60, now: Date.now(),
  });
  finishStage(record, "semantic", { state: "done", engine: "edge" });
  finishStage(record, "mediaFormat", { state: "done", engine: "edge" });
  // The first inspection finishes metadata:provenance inline, as it does the core stages.
  finishStage(record, "metadata:provenance", { state: "done", engine: "edge" });
  return record;
}

/** A runner answer as the consumer hands it over (the thumbnail, if any, already stored in R2). */
function runnerAnswer(body: unknown) {
  const { thumbnail: _stored, ...rest } = RunnerResponse.parse(body);
  return rest;
}

const video = { duration: { seconds: 4, formatted: "0:04" }, fps: 25, codec: "h264", width: 640, height: 360 };
const audio = { duration: { seconds: 4, formatted: "0:04" }, sampleRate: 48000, channels: 2, codec: "opus" };

describe("the registry", () => {
  it("declares every stage once, and the schema's names are the registry's", () => {
    const names = stageRegistry.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    expect(StageName.options).toEqual(names);
  });

  it("gives each category the SPEC 2.6 stage list, in registry order", () => {
    expect(stagesFor("video")).toEqual(["semantic", "mediaFormat", "metadata:video", "metadata:provenance", "preview:thumbnail", "preview:blurhash", "preview:palette"]);
    expect(stagesFor("audio")).toEqual(["semantic", "mediaFormat", "metadata:audio", "metadata:provenance"]);
    expect(stagesFor("embedded")).toEqual(["semantic", "mediaFormat", "oembed"]);
    expect(stagesFor("webpage")).toEqual(["semantic", "mediaFormat", "page", "page:media"]);
    for (const category of mediaCategories) expect(stagesByCategory[category]).toEqual(stagesFor(category));
  });

  it("maps Worker stages to runner stages without a name table", () => {
    expect(runnerStagesOf(["metadata:video", "preview:thumbnail", "preview:blurhash", "preview:palette"])).toEqual(["metadata", "thumbnail", "placeholder", "palette"]);
    expect(runnerStagesOf(["metadata:audio", "metadata:image"])).toEqual(["metadata"]);
    expect(runnerStagesOf(["semantic", "oembed"])).toEqual([]);
    expect(stagesInGroup("preview")).toEqual(["preview:thumbnail", "preview:blurhash", "preview:palette", "preview:storyboard", "preview:waveform"]);
  });

  it("every stage a runner stage feeds writes something from an engine output, and nothing from an empty one", () => {
    for (const stage of stageRegistry) {
      if (!stage.runnerStage) continue;
      expect(stage.write, stage.name).toBeDefined();
      expect(stage.write!({}), stage.name).toBeUndefined();
      expect(stage.fills.length, stage.name).toBeGreaterThan(0);
    }
    expect(stageDefinition("preview:palette").write!({ dominantColor: "#102030" })).toEqual({ dominantColor: "#102030" });
  });
});

describe("the state machine", () => {
  it("finishes a stage once: a replay changes nothing", () => {
    const record = recordOf("video");
    expect(finishStage(record, "metadata:video", { state: "failed", error: "first", engine: "runner" })).toBe(true);
    expect(finishStage(record, "metadata:video", { state: "done", engine: "runner" })).toBe(false);
    expect(record.stages["metadata:video"]).toMatchObject({ state: "failed", error: "first" });
    // A stage the category does not register cannot be finished.
    expect(finishStage(record, "metadata:audio", { state: "done" })).toBe(false);
    expect(record.stages["metadata:audio"]).toBeUndefined();
  });

  it("queued, started and retried stages stay pending; a done stage drops the retry's reason", () => {
    const record = recordOf("video");
    markQueued(record, ["metadata:video"], 1000, "runner");
    markStarted(record, ["metadata:video"], 1001);
    noteRetry(record, ["metadata:video"], "RUNNER_UNREACHABLE: refused");
    expect(record.stages["metadata:video"]).toMatchObject({ state: "pending", attempts: 1, queuedAt: 1000, error: "RUNNER_UNREACHABLE: refused" });
    expect(record.stages["metadata:video"]?.startedAt).toBeUndefined();
    finishStage(record, "metadata:video", { state: "done", engine: "runner" });
    expect(record.stages["metadata:video"]?.error).toBeUndefined();
  });

  it("keeps failure reasons to one short line", () => {
    const reason = shortReason(`CORRUPT_MEDIA: ${"x".repeat(500)}\n  at somewhere`);
    expect(reason.length).toBeLessThanOrEqual(200);
    expect(reason).not.toContain("\n");
  });

  it("writes each stage of an engine result on its own: metadata survives a failed frame", () => {
    const record = recordOf("video");
    const stages = pendingStages(record);
    applyEngineResult(record, {
      stages, output: { metadata: { video } }, engine: "runner",
      failures: { "preview:thumbnail": "CORRUPT_MEDIA: no video frame could be decoded" },
      missingReason: "nothing produced",
    });
    expect(record.results.video).toEqual(video);
    expect(record.stages["metadata:video"]?.state).toBe("done");
    expect(record.stages["preview:thumbnail"]).toMatchObject({ state: "failed", error: "CORRUPT_MEDIA: no video frame could be decoded" });
    expect(record.stages["preview:blurhash"]).toMatchObject({ state: "failed", error: "nothing produced" });
    expect(isComplete(record)).toBe(true);
  });

  it("failStages ends only pending stages", () => {
    const record = recordOf("image", "image/png");
    finishStage(record, "metadata:image", { state: "done" });
    failStages(record, stagesFor("image"), "BAD_GATEWAY: origin failed", "edge");
    expect(record.stages["metadata:image"]?.state).toBe("done");
    expect(deriveProcessing(record).failedStages).toEqual(["preview:thumbnail", "preview:blurhash", "preview:palette"]);
  });
});

describe("category revision", () => {
  it("a 'video' whose streams are audio becomes audio: previews dropped (not failed) but the thumbnail (its cover art, if any), metadata:audio registered", () => {
    const record = recordOf("video");
    expect(reviseCategory(record, "audio", { source: "ffprobe" })).toBe(true);
    expect(record.category).toBe("audio");
    expect(record.probe.mime).toBe("audio/webm");
    expect(Object.keys(record.stages).sort()).toEqual(["mediaFormat", "metadata:audio", "metadata:provenance", "preview:thumbnail", "semantic"]);
    expect(record.stages.semantic?.state).toBe("done");
    expect(record.stages["metadata:audio"]?.state).toBe("pending");
    expect(record.probe.evidence).toEqual(["tracks:ffprobe"]);
    expect(reviseCategory(record, "audio", { source: "ffprobe" })).toBe(false);
  });

  it("keeps non-category evidence and an explicit MIME type", () => {
    const record = recordOf("audio", "application/vnd.ms-asf");
    record.probe.evidence = ["bytes:application/vnd.ms-asf", "duration:asf-header"];
    reviseCategory(record, "video", { source: "ffprobe", mime: "video/x-ms-asf" });
    expect(record.probe.mime).toBe("video/x-ms-asf");
    expect(record.probe.evidence).toEqual(["tracks:ffprobe", "duration:asf-header"]);
    expect(pendingStages(record)).toEqual(["metadata:video", "preview:thumbnail", "preview:blurhash", "preview:palette"]);
  });

  it("a runner answer that detects audio revises the record, fills metadata:audio and completes it", () => {
    const record = recordOf("video");
    const stages = pendingStages(record);
    const result = runnerAnswer({
      metadata: { audio }, timings: { total: 40 }, detected: { category: "audio", source: "ffprobe" },
      stages: { metadata: { status: "done" }, thumbnail: { status: "skipped", reason: "no picture" } },
    });
    expect(applyRunnerOutcome(record, { stages, result })).toBe(true);
    expect(record.category).toBe("audio");
    expect(record.results.audio).toEqual(audio);
    expect(deriveProcessing(record)).toMatchObject({ status: "complete", completedStages: ["semantic", "mediaFormat", "metadata:audio", "metadata:provenance"] });
    expect(deriveProcessing(record).failedStages).toBeUndefined();
    const response = project(record, { profile: "standard", responseSource: "fresh" });
    expect("processing" in response && response.data.semantic).toMatchObject({ semanticType: "audio", enrichmentSources: ["tracks:ffprobe"] });
  });

  it("an 'audio' the runner sees as video gains pending preview stages for the next runner call", () => {
    const record = recordOf("audio", "audio/ogg");
    const result = runnerAnswer({ metadata: { video }, timings: { total: 40 }, detected: { category: "video", source: "ffprobe" } });
    applyRunnerOutcome(record, { stages: ["metadata:audio"], result });
    expect(record.probe.mime).toBe("video/ogg");
    expect(record.results.video).toEqual(video);
    expect(pendingStages(record)).toEqual(["preview:thumbnail", "preview:blurhash", "preview:palette"]);
  });
});

describe("stage errors in the response", () => {
  it("full's diagnostics and debug=true carry {stage, reason}; failedStages stays a list of names", () => {
    const record = recordOf("video");
    const result = runnerAnswer({
      metadata: { video }, timings: { total: 40 },
      stages: { metadata: { status: "done" }, thumbnail: { status: "failed", reason: "CORRUPT_MEDIA: no video frame could be decoded" } },
    });
    applyRunnerOutcome(record, { stages: pendingStages(record), result });
    const full = project(record, { profile: "full", responseSource: "fresh" });
    if (!("processing" in full)) throw new Error("not an inspect response");
    expect(full.processing.failedStages).toEqual(["preview:thumbnail", "preview:blurhash", "preview:palette"]);
    expect(full.data.diagnostics?.stageErrors).toEqual([
      { stage: "preview:thumbnail", reason: "CORRUPT_MEDIA: no video frame could be decoded" },
      { stage: "preview:blurhash", reason: "the media runner produced no result" },
      { stage: "preview:palette", reason: "the media runner produced no result" },
    ]);
    expect(full.data.metadata?.video).toEqual(video);
    expect(full.debug).toBeUndefined();
    const debug = project(record, { profile: "standard", responseSource: "fresh", debug: true });
    expect("debug" in debug && debug.debug?.stageErrors).toEqual(full.data.diagnostics?.stageErrors);
    const plain = project(record, { profile: "standard", responseSource: "fresh" });
    expect("debug" in plain).toBe(false);
  });
});
