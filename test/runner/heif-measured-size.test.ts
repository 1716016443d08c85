/**
 * A HEIC whose `ispe` box lies about its size: the edge reads the header (64x64), the runner measures the coded
 * picture it decodes for the thumbnail (640x480). The runner's size wins in the record and in the answer, so
 * the dimensions match the picture the thumbnail shows; an honest HEIC and a non-HEIF image keep theirs.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { runnerStagesOf } from "../../shared/stages/index.ts";
import { project } from "../../shared/projection/index.ts";
import { createRecord } from "../../worker/record/create-record.ts";
import { applyRunnerOutcome } from "../../worker/record/runner-results.ts";
import { applyInlineOutput, finishStage, pendingStages } from "../../worker/record/stage-state.ts";
import { imageMetadataOf, readImageHeader } from "../../worker/image/header/read-image-header.ts";
import { lyingIspe, makeHeic, writeOnce } from "../../testkit/hostile-inputs.ts";
import { processRequest, runnerOverFolder } from "../../testkit/runner/harness.ts";

const dir = join(import.meta.dirname, "..", ".fixtures", "heif-size");
const runner = runnerOverFolder(() => {
  mkdirSync(dir, { recursive: true });
  const honest = makeHeic(join(dir, "honest-640x480.heic"), 640, 480);
  writeOnce(join(dir, "lying-64.heic"), () => lyingIspe(readFileSync(honest), { width: 640, height: 480 }, { width: 64, height: 64 }));
  return dir;
}, 120_000);

/** A record as the edge leaves it after its first answer: the header's facts written inline, previews pending. */
function edgeRecord(file: string, mime: string): ResourceRecord {
  const url = runner.fileUrl(file);
  const record = createRecord({
    key: "0".repeat(64), url, normalizedUrl: url, category: "image",
    probe: { finalUrl: url, status: 206, mime, streamable: true, bytesFetched: 4096, redirects: 0, headers: {}, evidence: [`bytes:${mime}`] },
    ttlSeconds: 60, now: Date.now(),
  });
  finishStage(record, "semantic", { state: "done", engine: "edge" });
  finishStage(record, "mediaFormat", { state: "done", engine: "edge" });
  // Capture, rights and provenance are always finished inline by the edge.
  if (record.stages["metadata:provenance"]) finishStage(record, "metadata:provenance", { state: "done", engine: "edge" });
  const image = imageMetadataOf(readImageHeader(readFileSync(join(dir, file))));
  if (image) applyInlineOutput(record, { metadata: { image } }, 1);
  return record;
}

/** What the runner answers for the record's pending stages, as the queue consumer hands it over. */
async function runnerOutcome(record: ResourceRecord) {
  const stages = pendingStages(record);
  const res = await processRequest(runner.app(), { url: record.probe.finalUrl, category: "image", stages: runnerStagesOf(stages) });
  expect(res.statusCode, res.body).toBe(200);
  const { thumbnail, ...rest } = RunnerResponse.parse(res.json());
  return { stages, result: { ...rest, ...(thumbnail ? { thumbnail: { url: "/t.jpg", dimensions: `${thumbnail.width}x${thumbnail.height}` } } : {}) }, thumbnail };
}

describe("a HEIC's size: the runner's measured picture over the header's ispe", { timeout: 60_000 }, () => {
  it("replaces a lying 64x64 ispe with the 640x480 coded picture, matching the thumbnail", async () => {
    const record = edgeRecord("lying-64.heic", "image/heic");
    // The edge read the lie and finished the metadata stage with it; the runner is asked for previews only.
    expect(record.results.image).toMatchObject({ width: 64, height: 64 });
    expect(record.stages["metadata:image"]?.state).toBe("done");
    const outcome = await runnerOutcome(record);
    expect(runnerStagesOf(outcome.stages)).not.toContain("metadata");
    expect(outcome.result.metadata?.image).toMatchObject({ width: 640, height: 480 });
    expect(outcome.thumbnail).toMatchObject({ width: 320, height: 240 });

    expect(applyRunnerOutcome(record, outcome)).toBe(true);
    expect(record.results.image).toMatchObject({ width: 640, height: 480 });
    const answer = project(record, { profile: "full", responseSource: "fresh" });
    expect(JSON.stringify(answer)).toContain('"width":640');
    expect(JSON.stringify(answer)).not.toContain('"width":64,');
    expect(JSON.stringify(answer)).toContain('"dimensions":"decoder"');
    // Replayed, the message changes nothing.
    expect(applyRunnerOutcome(record, outcome)).toBe(false);
  });

  it("leaves an honest HEIC's header size as it was (the same numbers)", async () => {
    const record = edgeRecord("honest-640x480.heic", "image/heic");
    const before = structuredClone(record.results.image);
    expect(before).toMatchObject({ width: 640, height: 480 });
    applyRunnerOutcome(record, await runnerOutcome(record));
    expect(record.results.image).toEqual(before);
    expect(JSON.stringify(project(record, { profile: "full", responseSource: "fresh" }))).toContain('"dimensions":"header"');
  });

  it("never rewrites the size of an image that is not HEIF, whatever a runner answer says", () => {
    const record = edgeRecord("honest-640x480.heic", "image/png");
    const before = structuredClone(record.results.image);
    applyRunnerOutcome(record, {
      stages: pendingStages(record),
      result: { metadata: { image: { colorSpace: "srgb", hasAlpha: false, width: 9, height: 9 } }, timings: { total: 1 }, stages: { metadata: { status: "done" } } },
    });
    expect(record.results.image).toEqual(before);
  });
});
