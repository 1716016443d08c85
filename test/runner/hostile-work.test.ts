/**
 * Bounded engine work under hostile inputs, on the runner: each file is made here, small, and declares or hides
 * far more work than its bytes. Each is refused or bounded by a wall that reads what the engine will really do,
 * with a spec error code, in one job, and the engine time it cost is reported (the Worker charges it to the
 * inspection): a 10-hour 8-channel FLAC (0.9 MB), the same hiding its length, a HEIC whose `ispe` lies, an
 * honest HEIC over the pixel wall with an embedded thumbnail, and an 8K all-keyframe video's storyboard.
 */
import { readFileSync } from "node:fs";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { boundStoryboardPlan, storyboardMaxDecodedPixels, waveformMaxDecodedSamples } from "../../media-runner/src/media/work-walls.ts";
import { storyboardPlan } from "../../shared/media/storyboard-plan.ts";
import { planHeifDecode } from "../../media-runner/src/media/heif-wall.ts";
import { RunnerError } from "../../media-runner/src/errors.ts";
import { inspectionEngineSecondsBudget } from "../../shared/limits.ts";
import { RunnerErrorBody, RunnerResponse } from "../../shared/shapes/runner.ts";
import { gridHeic, keyframeVideo, lyingIspe, makeHeic, silentFlac, writeOnce } from "../../testkit/hostile-inputs.ts";
import { processRequest, testApp } from "../../testkit/runner/harness.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";

const dir = join(import.meta.dirname, "..", ".fixtures", "hostile");
let origin: LoopbackOrigin;
let app: RunnerApp;
/** A pixel wall of 1 Mpx, so a 2000x2000 HEIC (quick to encode) stands for a 50 MP one. */
let smallWall: RunnerApp;

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  writeOnce(join(dir, "ten-hours-8ch.flac"), () => silentFlac({ hours: 10, channels: 8, sampleRate: 48000 }));
  // The same frames, STREAMINFO declaring one minute: only decoding finds the ten hours.
  writeOnce(join(dir, "hidden-hours-8ch.flac"), () => silentFlac({ hours: 10, channels: 8, sampleRate: 48000, declaredSamples: 60 * 48000 }));
  const honest = makeHeic(join(dir, "plain-2000.heic"), 2000, 2000);
  writeOnce(join(dir, "lying-ispe.heic"), () => lyingIspe(readFileSync(honest), { width: 2000, height: 2000 }, { width: 64, height: 64 }));
  makeHeic(join(dir, "thumbed-2000.heic"), 2000, 2000, 256);
  keyframeVideo(join(dir, "keyframes-8k.mp4"), 7680, 4320, 30);
  // A 48-50 MP phone photo's layout: a grid of 512x512 tiles (one coded tile repeated) and a thumbnail item.
  const tile = makeHeic(join(dir, "tile-512.heic"), 512, 512);
  const thumb = makeHeic(join(dir, "thumb-320x214.heic"), 320, 214);
  writeOnce(join(dir, "grid-8736x5856.heic"), () => gridHeic({
    tile, tileWidth: 512, tileHeight: 512, columns: 18, rows: 12, width: 8736, height: 5856, thumb: { file: thumb, width: 320, height: 214 },
  }));
  writeOnce(join(dir, "grid-2000x1500.heic"), () => gridHeic({ tile, tileWidth: 512, tileHeight: 512, columns: 4, rows: 3, width: 2000, height: 1500 }));
  origin = await startLoopbackOrigin([dir]);
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
  smallWall = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, RUNNER_MAX_DECODE_PIXELS: "1000000" });
}, 180_000);

afterAll(async () => {
  await app?.close();
  await smallWall?.close();
  await origin?.close();
});

const url = (file: string) => `${origin.url}/files/${file}`;

describe("waveforms of audio that declares (or hides) hours of channels", { timeout: 60_000 }, () => {
  it("refuses a declared 10 h x 8 ch x 48 kHz before decoding: the stage fails naming the bound, the metadata stands", async () => {
    const res = await processRequest(app, { url: url("ten-hours-8ch.flac"), category: "audio", stages: ["metadata", "waveform"] });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.audio?.duration?.seconds).toBeGreaterThan(35_999);
    expect(result.stages?.waveform?.status).toBe("failed");
    expect(result.stages?.waveform?.reason).toContain("waveformMaxDecodedSamples");
    expect(result.waveform).toBeUndefined();
    // ffprobe ran, the waveform's ffmpeg did not: far less than one waveform decode at the bound.
    expect(result.engineMs).toBeGreaterThan(0);
    expect(result.engineMs).toBeLessThan(inspectionEngineSecondsBudget * 1000);
    expect(waveformMaxDecodedSamples).toBeLessThan(36_000 * 8 * 48_000);
  });

  it("stops a length the header hides when the inspection's engine time is spent, naming the budget", async () => {
    const engineMs = 3_000;
    const res = await processRequest(app, {
      url: url("hidden-hours-8ch.flac"), category: "audio", stages: ["metadata", "waveform"], budget: { requests: 64, bytes: 64 * 1024 * 1024, engineMs },
    });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages?.waveform?.status).toBe("failed");
    expect(result.stages?.waveform?.reason).toContain("inspectionEngineSecondsBudget");
    // The meter kills the engine when the running engines reach the budget: no more is spent, barely less.
    expect(result.engineMs).toBeGreaterThanOrEqual(engineMs - 50);
    expect(result.engineMs).toBeLessThan(engineMs + 1_000);
  });

  it("refuses a job at once when the inspection's engine time is already spent (the error carries the usage)", async () => {
    const res = await processRequest(app, {
      url: url("hidden-hours-8ch.flac"), category: "audio", stages: ["metadata", "waveform"], budget: { requests: 64, bytes: 64 * 1024 * 1024, engineMs: 0 },
    });
    expect(res.statusCode).toBe(413);
    const body = RunnerErrorBody.parse(res.json());
    expect(body.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(body.error.message).toContain("inspectionEngineSecondsBudget");
    expect(body.error.usage).toMatchObject({ engineMs: 0 });
  });
});

describe("the HEIF pixel wall reads the coded picture, not the ispe", { timeout: 60_000 }, () => {
  it("refuses a HEIC whose ispe says 64x64 over a 2000x2000 HEVC picture, before any decoder runs", async () => {
    const res = await processRequest(smallWall, { url: url("lying-ispe.heic"), category: "image", stages: ["metadata", "thumbnail"] });
    expect(res.statusCode, res.body).toBe(422);
    const body = RunnerErrorBody.parse(res.json());
    expect(body.error.code).toBe("IMAGE_TOO_LARGE");
    expect(body.error.message).toContain("4000000 pixels");
    expect(body.error.message).toContain("declares 64x64");
    // Nothing was decoded: no engine process ran at all.
    expect(body.error.usage?.engineMs).toBe(0);
  });

  it("the same file is decoded whole under a wall it fits (the lie changes nothing the decoder does)", async () => {
    const res = await processRequest(app, { url: url("lying-ispe.heic"), category: "image", stages: ["metadata", "thumbnail"] });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.thumbnail).toMatchObject({ width: 320, height: 320 });
  });

  it("gives an honest HEIC over the wall its preview from the embedded thumbnail, reporting the picture's own size", async () => {
    const res = await processRequest(smallWall, { url: url("thumbed-2000.heic"), category: "image", stages: ["metadata", "thumbnail", "placeholder"] });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.image).toMatchObject({ width: 2000, height: 2000 });
    expect(result.stages).toMatchObject({ thumbnail: { status: "done" }, placeholder: { status: "done" } });
    // From the 256x256 thumbnail item (never upscaled to the 320 box).
    expect(result.thumbnail).toMatchObject({ width: 256, height: 256 });
  });

  it("gives a 51 Mpx grid HEIC (216 tiles) its preview from its thumbnail item under the default wall, decoding no tile", async () => {
    const res = await processRequest(app, { url: url("grid-8736x5856.heic"), category: "image", stages: ["metadata", "thumbnail"] });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.image).toMatchObject({ width: 8736, height: 5856 });
    expect(result.thumbnail).toMatchObject({ width: 320, height: 214 });
  });

  it("decodes a grid within the wall whole, through heif-convert", async () => {
    const res = await processRequest(app, { url: url("grid-2000x1500.heic"), category: "image", stages: ["metadata", "thumbnail"] });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.metadata?.image).toMatchObject({ width: 2000, height: 1500 });
    expect(result.thumbnail).toMatchObject({ width: 320, height: 240 });
  });

  it("refuses a HEIF whose boxes cannot be read (truncated, or sizes past their parent) as corrupt, without decoding", () => {
    const heic = readFileSync(join(dir, "plain-2000.heic"));
    const meta = heic.indexOf("meta", 0, "latin1");
    const cases = [heic.subarray(0, meta + 40), Buffer.from(heic).fill(0xff, meta + 8, meta + 12), Buffer.from("not a heif at all, just text")];
    for (const bytes of cases) {
      let thrown: unknown;
      try {
        planHeifDecode(bytes, 50_000_000);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RunnerError);
      expect((thrown as RunnerError).code).toBe("CORRUPT_MEDIA");
    }
  });

  it("refuses an honest HEIC over the wall without a thumbnail, before decoding", async () => {
    const res = await processRequest(smallWall, { url: url("plain-2000.heic"), category: "image", stages: ["thumbnail"] });
    expect(res.statusCode, res.body).toBe(422);
    const body = RunnerErrorBody.parse(res.json());
    expect(body.error.code).toBe("IMAGE_TOO_LARGE");
    expect(body.error.usage?.engineMs).toBe(0);
  });
});

describe("storyboards are bounded by pixels decoded", { timeout: 120_000 }, () => {
  it("keeps every tile up to 4K and takes every k-th tile above it", () => {
    const plan = storyboardPlan(600); // 60 tiles, 10 s apart
    expect(boundStoryboardPlan(plan, 1920 * 1080)).toEqual(plan);
    expect(boundStoryboardPlan(plan, 3840 * 2160)).toEqual(plan);
    const eightK = boundStoryboardPlan(plan, 7680 * 4320);
    expect(eightK.tiles * 7680 * 4320).toBeLessThanOrEqual(storyboardMaxDecodedPixels);
    expect(eightK.interval).toBe(plan.interval * Math.ceil(plan.tiles / eightK.tiles));
    expect(eightK.tiles * eightK.interval).toBeGreaterThanOrEqual(plan.tiles * plan.interval);
    // A single frame over the bound still gets its one tile (the decoder's own pixel limit judges that frame).
    expect(boundStoryboardPlan(plan, 2 * storyboardMaxDecodedPixels).tiles).toBe(1);
  });

  it("an 8K all-keyframe video gets as many tiles as fit storyboardMaxDecodedPixels, not one per second", async () => {
    const res = await processRequest(app, { url: url("keyframes-8k.mp4"), category: "video", stages: ["storyboard"] });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages?.storyboard?.status).toBe("done");
    const tiles = result.storyboard!.tiles;
    // 30 s at one tile a second would be 30 keyframes of 33 Mpx (1 Gpx): the bound keeps 15 at 2 s.
    expect(tiles * 7680 * 4320).toBeLessThanOrEqual(storyboardMaxDecodedPixels);
    expect(tiles).toBe(15);
    expect(result.storyboard!.interval).toBe(2);
    expect(result.engineMs).toBeGreaterThan(0);
  });
});
