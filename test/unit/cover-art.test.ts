/**
 * Audio cover art: the edge's evidence from the bytes held (ffmpeg-made files), and the record's when-found
 * thumbnail stage (registered on evidence, unregistered when the runner finds no picture, done with one).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { stagesFor } from "../../shared/stages/index.ts";
import { deriveProcessing, project } from "../../shared/projection/index.ts";
import { createRecord } from "../../worker/record/create-record.ts";
import { applyRunnerOutcome } from "../../worker/record/runner-results.ts";
import { finishStage, pendingStages, registerFound } from "../../worker/record/stage-state.ts";
import { coverArtEvidence } from "../../worker/probe/cover-art-evidence.ts";
import { makeCoverArtFixtures, withCover, withoutCover } from "../../testkit/cover-art-fixtures.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cover-evidence-"));
  await makeCoverArtFixtures(dir);
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("cover art evidence from the bytes held", () => {
  for (const name of withCover) {
    it(`${name}: found in the whole file and in its first 64 KiB`, async () => {
      const bytes = new Uint8Array(await readFile(join(dir, name)));
      expect(coverArtEvidence(bytes)).toBe("found");
      expect(coverArtEvidence(bytes.subarray(0, 64 * 1024))).toBe("found");
    });
  }
  for (const name of withoutCover) {
    it(`${name}: none`, async () => {
      expect(coverArtEvidence(new Uint8Array(await readFile(join(dir, name))))).toBe("none");
    });
  }

  it("a tag area that runs past the bytes held is 'maybe', never 'none'", async () => {
    const flac = new Uint8Array(await readFile(join(dir, "plain.flac")));
    expect(coverArtEvidence(flac.subarray(0, 10))).toBe("maybe");
    // An ID3 tag declaring 1 MiB, of which 20 bytes are held, none a picture frame.
    const id3 = new Uint8Array(30);
    id3.set([0x49, 0x44, 0x33, 3, 0, 0, 0x00, 0x40, 0x00, 0x00]);
    expect(coverArtEvidence(id3)).toBe("maybe");
  });

  it("a hostile FLAC block chain or MP4 box chain ends the walk without reading past the bytes", () => {
    const flac = new Uint8Array(4 + 4 * 5000);
    flac.set([0x66, 0x4c, 0x61, 0x43]); // fLaC, then 5000 empty non-last STREAMINFO-typed headers
    expect(coverArtEvidence(flac)).toBe("maybe");
    const mp4 = new Uint8Array(16);
    mp4.set([0, 0, 0, 4, 0x66, 0x74, 0x79, 0x70]); // ftyp box claiming 4 bytes: malformed
    expect(coverArtEvidence(mp4)).toBe("maybe");
  });
});

describe("the audio thumbnail is a when-found stage", () => {
  const audio = { duration: { seconds: 2, formatted: "0:02" }, sampleRate: 44100, channels: 1, codec: "mp3" };
  function audioRecord() {
    const record = createRecord({
      key: "0".repeat(64), url: "https://cdn.example.com/a.mp3", normalizedUrl: "https://cdn.example.com/a.mp3", category: "audio",
      probe: { finalUrl: "https://cdn.example.com/a.mp3", status: 206, mime: "audio/mpeg", streamable: true, bytesFetched: 4100, redirects: 0, headers: {} },
      ttlSeconds: 60, now: Date.now(),
    });
    for (const stage of stagesFor("audio")) finishStage(record, stage, { state: "done", engine: "edge" });
    record.results.audio = audio;
    return record;
  }
  const answer = (stages: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const { thumbnail: _stored, ...rest } = RunnerResponse.parse({ timings: { total: 30 }, detected: { category: "audio", source: "ffprobe" }, stages, ...extra });
    return rest;
  };

  it("is not registered for audio by default: plain audio is complete with no preview picture", () => {
    const record = audioRecord();
    expect(stagesFor("audio")).not.toContain("preview:thumbnail");
    expect(deriveProcessing(record).status).toBe("complete");
    const response = project(record, { profile: "standard", responseSource: "fresh" });
    expect("processing" in response && response.data.preview).not.toHaveProperty("thumbnail");
  });

  it("registered on evidence, it is pending (null) until the runner answers; a cover makes it done", () => {
    const record = audioRecord();
    expect(registerFound(record, "preview:thumbnail")).toBe(true);
    expect(registerFound(record, "preview:thumbnail")).toBe(false);
    expect(pendingStages(record)).toEqual(["preview:thumbnail"]);
    const pending = project(record, { profile: "standard", responseSource: "fresh" });
    expect("processing" in pending && pending.data.preview?.thumbnail).toBeNull();
    const result = { ...answer({ thumbnail: { status: "done" } }), thumbnail: { url: "/api/v1/thumbnails/c.webp", dimensions: "400x300" } };
    expect(applyRunnerOutcome(record, { stages: ["preview:thumbnail"], result })).toBe(true);
    expect(record.results.thumbnail).toEqual({ url: "/api/v1/thumbnails/c.webp", dimensions: "400x300" });
    expect(deriveProcessing(record)).toMatchObject({ status: "complete" });
    expect(deriveProcessing(record).failedStages).toBeUndefined();
  });

  it("the runner finding no cover unregisters it: complete, nothing failed, no thumbnail field", () => {
    const record = audioRecord();
    registerFound(record, "preview:thumbnail");
    const result = answer({ thumbnail: { status: "skipped", reason: "the audio has no cover art" } });
    expect(applyRunnerOutcome(record, { stages: ["preview:thumbnail"], result })).toBe(true);
    expect(record.stages["preview:thumbnail"]).toBeUndefined();
    expect(deriveProcessing(record).status).toBe("complete");
    expect(deriveProcessing(record).failedStages).toBeUndefined();
  });

  it("a cover that cannot be decoded fails the stage with the runner's reason", () => {
    const record = audioRecord();
    registerFound(record, "preview:thumbnail");
    const result = answer({ thumbnail: { status: "failed", reason: "CORRUPT_MEDIA: no frame could be decoded" } });
    applyRunnerOutcome(record, { stages: ["preview:thumbnail"], result });
    expect(record.stages["preview:thumbnail"]?.state).toBe("failed");
  });

  it("is registered only for audio (image and video always have it)", () => {
    const record = audioRecord();
    record.category = "image";
    delete record.stages["preview:thumbnail"];
    expect(registerFound(record, "preview:thumbnail")).toBe(false);
  });
});
