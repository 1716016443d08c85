/**
 * Issue 24 items 2 and 3 on the runner: a storyboard of a 30 MB faststart MP4 read by Range (bytes pulled far
 * below the file size, and fewer than one ffmpeg decoding keyframes through a select filter pulls), and the
 * waveform and EBU R128 loudness of audio, checked against ffmpeg's own ebur128 run on the local file.
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { storyboardVtt } from "../../shared/media/storyboard-plan.ts";
import { RunnerResponse, type RunnerStoryboard } from "../../shared/shapes/runner.ts";
import { processRequest, sharp, testApp } from "../../testkit/runner/harness.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { parseVtt } from "../../testkit/vtt.ts";
import { withQuarterTurn } from "../../testkit/media-fixtures.ts";

const dir = join(import.meta.dirname, "..", ".fixtures", "storyboard");

/** Made once and cached: ffmpeg's deterministic sources; the noise keeps the bitrate (and size) up. */
const fixtures: Record<string, string[]> = {
  // 30 s, 1280x720, one keyframe a second, 8 Mb/s constant: about 30 MB, index first.
  "big-faststart.mp4": ["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25,noise=alls=30:allf=t", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
    "-t", "30", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-b:v", "8M", "-minrate", "8M", "-maxrate", "8M", "-bufsize", "4M",
    "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", "-f", "mp4"],
  // 12 s whose colour turns 30 degrees of hue every second (noise keeps the frames from being trivially small):
  // H.264 with a keyframe each second and the moov at the end; HEVC with one every 2 s, index first, turned 90
  // degrees by its track matrix; and VP9 in WebM (no sample tables: the general path).
  "seconds.mp4": ["-f", "lavfi", "-i", "color=c=0xff0000:s=640x360:r=25,hue=h=30*floor(t),noise=alls=20:allf=t", "-t", "12",
    "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "2M", "-force_key_frames", "expr:gte(t,n_forced)", "-sc_threshold", "0", "-g", "250",
    "-pix_fmt", "yuv420p", "-f", "mp4"],
  "seconds-hevc.mp4": ["-f", "lavfi", "-i", "color=c=0xff0000:s=640x360:r=25,hue=h=30*floor(t),noise=alls=20:allf=t", "-t", "12",
    "-c:v", "libx265", "-preset", "ultrafast", "-b:v", "2M", "-x265-params", "keyint=50:min-keyint=50:scenecut=0:log-level=error",
    "-pix_fmt", "yuv420p", "-tag:v", "hvc1", "-movflags", "+faststart", "-f", "mp4"],
  "seconds.webm": ["-f", "lavfi", "-i", "color=c=0xff0000:s=320x180:r=25,hue=h=30*floor(t)", "-t", "6",
    "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "25", "-b:v", "500k", "-f", "webm"],
  // 30 s of speech-like programme: a tone whose level steps, so integrated loudness and LRA are not trivial.
  "programme.m4a": ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000,volume='if(lt(t,10),0.2,if(lt(t,20),0.6,0.1))':eval=frame",
    "-t", "30", "-c:a", "aac", "-b:a", "128k", "-f", "mp4"],
  "stereo.flac": ["-f", "lavfi", "-i", "sine=frequency=300:sample_rate=44100", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100",
    "-filter_complex", "[0:a][1:a]join=inputs=2:channel_layout=stereo[a]", "-map", "[a]", "-t", "12", "-c:a", "flac", "-f", "flac"],
};

/** Given a 90 degree display matrix after encoding (ffmpeg 5.1 has no option for it). */
const rotated = new Set(["seconds-hevc.mp4"]);

function ensureFixtures(): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, args] of Object.entries(fixtures)) {
    const path = join(dir, name);
    if (existsSync(path)) continue;
    const partial = `${path}.partial`;
    execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args, partial]);
    if (rotated.has(name)) writeFileSync(partial, withQuarterTurn(readFileSync(partial)));
    renameSync(partial, path);
  }
}

/** The mean colour of each whole second of a local file (its frames n = 25 k, averaged to one pixel). */
function secondColours(path: string): number[][] {
  const raw = execFileSync("ffmpeg", ["-v", "error", "-i", path, "-vf", "select=not(mod(n\\,25)),scale=1:1:flags=area", "-fps_mode", "passthrough",
    "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]);
  return Array.from({ length: raw.length / 3 }, (_, i) => [raw[3 * i]!, raw[3 * i + 1]!, raw[3 * i + 2]!]);
}

/** Each tile's mean colour, read back from the sprite. */
async function tileColours(board: RunnerStoryboard): Promise<number[][]> {
  const sprite = Buffer.from(board.base64, "base64");
  return Promise.all(Array.from({ length: board.tiles }, async (_, i) => {
    const { data, info } = await sharp(sprite).extract({
      left: (i % board.columns) * board.tileWidth, top: Math.floor(i / board.columns) * board.tileHeight, width: board.tileWidth, height: board.tileHeight,
    }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const sums = [0, 0, 0];
    for (let p = 0; p < data.length; p += info.channels) for (let k = 0; k < 3; k++) sums[k]! += data[p + k]!;
    return sums.map((sum) => sum / (data.length / info.channels));
  }));
}

/** The second whose colour is nearest to `colour`. */
function nearestSecond(colour: number[], seconds: number[][]): number {
  const distance = (a: number[], b: number[]) => a.reduce((sum, v, k) => sum + (v - b[k]!) ** 2, 0);
  return seconds.reduce((best, c, i) => (distance(colour, c) < distance(colour, seconds[best]!) ? i : best), 0);
}

/** Sizes of a local file's video keyframes (ffprobe's packets flagged K). */
function keyframeBytes(path: string): number[] {
  const csv = execFileSync("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size,flags", "-of", "csv=p=0", path], { encoding: "utf8" });
  return csv.trim().split("\n").map((line) => line.split(",")).filter(([, flags]) => flags?.startsWith("K")).map(([size]) => Number(size));
}

/** ffmpeg's own ebur128 summary on the local file (no proxy, no resampling): the reference. */
function referenceLoudness(path: string): { i: number; lra: number; peak: number } {
  const run = spawnSync("ffmpeg", ["-hide_banner", "-nostats", "-i", path, "-map", "0:a:0", "-af", "ebur128=peak=true", "-f", "null", "-"], { encoding: "utf8" });
  const summary = run.stderr.slice(run.stderr.lastIndexOf("Summary:"));
  const value = (label: string) => Number(new RegExp(`${label}:\\s+(-?[0-9.]+)`).exec(summary)![1]);
  return { i: value("I"), lra: value("LRA"), peak: value("Peak") };
}

let origin: LoopbackOrigin;
/** The first test's storyboard, read again by the track test (one 30-tile run is slow on a loaded host). */
let made: RunnerStoryboard | undefined;
let app: RunnerApp;

beforeAll(async () => {
  ensureFixtures();
  origin = await startLoopbackOrigin([dir]);
  // The test host is shared and often loaded many times over: the production deadlines (45 s a job) are for a
  // runner with its own cores, so they are widened here; the bytes pulled do not depend on them.
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, RUNNER_JOB_TIMEOUT_MS: "240000", RUNNER_PROCESS_TIMEOUT_MS: "60000" });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await origin?.close();
});

describe("storyboard", () => {
  it("a 30 MB faststart MP4: one sprite of evenly spaced keyframes, read by Range far below the file size", async () => {
    const size = statSync(join(dir, "big-faststart.mp4")).size;
    origin.reset();
    const res = await processRequest(app, { url: `${origin.url}/files/big-faststart.mp4`, category: "video", stages: ["storyboard"] });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    // A keyframe at every tile's time: each tile's frame is its keyframe, read alone.
    expect(result.stages?.storyboard).toMatchObject({ status: "done", method: "frames-by-range" });
    const board = result.storyboard!;
    made = board;
    // 30 s, at most 100 tiles: one a second, 10 columns, 160 px wide at 16:9.
    expect(board).toMatchObject({ tiles: 30, columns: 10, tileWidth: 160, tileHeight: 90, interval: 1, contentType: "image/webp" });
    const sprite = await sharp(Buffer.from(board.base64, "base64")).metadata();
    expect(sprite.format).toBe("webp");
    expect([sprite.width, sprite.height]).toEqual([10 * 160, 3 * 90]);
    // Range reads only: ffprobe's index and first packets, then exactly each tile's keyframe (30 of them, one a
    // second, 3.1 MB: 10.1% of the file) and nothing around it.
    const keyframeTotal = keyframeBytes(join(dir, "big-faststart.mp4")).reduce((a, b) => a + b, 0);
    expect(result.bytesFetched!).toBeLessThan(keyframeTotal + 512 * 1024);
    expect(origin.stats.bytes).toBe(result.bytesFetched);
    expect(result.stages!.storyboard!.bytesPulled!).toBeLessThanOrEqual(keyframeTotal);
    expect(result.stages!.storyboard!.requests!).toBeLessThanOrEqual(30);
    console.info(`storyboard: ${result.bytesFetched} of ${size} bytes pulled (${((100 * result.bytesFetched!) / size).toFixed(1)} %), ${origin.stats.requests.length} requests, ${result.timings.storyboard} ms; stage ${JSON.stringify(result.stages!.storyboard)}`);
  }, 300_000);

  it("tiles are the keyframes at their times, and only the keyframes' bytes are read (H.264, moov at the end)", async () => {
    const path = join(dir, "seconds.mp4");
    const size = statSync(path).size;
    const keyframes = keyframeBytes(path);
    origin.reset();
    const res = await processRequest(app, { url: `${origin.url}/files/seconds.mp4`, category: "video", stages: ["storyboard"] });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    const stage = result.stages!.storyboard!;
    // A keyframe at every tile's time: the frame at the time is the keyframe, read alone.
    expect(stage).toMatchObject({ status: "done", method: "frames-by-range" });
    const board = result.storyboard!;
    expect(board).toMatchObject({ tiles: 12, interval: 1, tileWidth: 160, tileHeight: 90 });
    // A keyframe each second: tile i is second i.
    const seconds = secondColours(path);
    const tiles = await tileColours(board);
    expect(tiles.map((colour) => nearestSecond(colour, seconds))).toEqual(tiles.map((_, i) => i));
    // The stage read the 12 keyframes (the moov was in the block cache from ffprobe), in at most one request each.
    const keyframeTotal = keyframes.reduce((a, b) => a + b, 0);
    expect(keyframes).toHaveLength(12);
    expect(stage.bytesPulled!).toBeGreaterThanOrEqual(keyframeTotal - keyframes[0]!); // the first may be cached already
    expect(stage.bytesPulled!).toBeLessThanOrEqual(keyframeTotal + 64 * 1024);
    expect(stage.requests!).toBeLessThanOrEqual(12);
    // The whole job, ffprobe included.
    expect(result.bytesFetched!).toBeLessThan(keyframeTotal + 512 * 1024);
    expect(origin.stats.bytes).toBe(result.bytesFetched);
    console.info(`seconds.mp4: stage ${stage.bytesPulled} bytes in ${stage.requests} requests, job ${result.bytesFetched} of ${size} (keyframes ${keyframeTotal})`);
  }, 120_000);

  it("HEVC with keyframes every 2 s, turned 90 degrees: each tile is the frame at its second, the tiles portrait", async () => {
    const path = join(dir, "seconds-hevc.mp4");
    const res = await processRequest(app, { url: `${origin.url}/files/seconds-hevc.mp4`, category: "video", stages: ["storyboard"] });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages!.storyboard).toMatchObject({ status: "done", method: "frames-by-range" });
    const board = result.storyboard!;
    // Displayed 360x640: tiles 160 wide and 284 high.
    expect(board).toMatchObject({ tiles: 12, interval: 1, tileWidth: 160, tileHeight: 284 });
    const seconds = secondColours(path);
    const tiles = await tileColours(board);
    // Keyframes at 0, 2, 4...: an odd second is decoded forward from the keyframe before it.
    expect(tiles.map((colour) => nearestSecond(colour, seconds))).toEqual(tiles.map((_, i) => i));
    expect(result.stages!.storyboard!.requests!).toBeLessThanOrEqual(6);
  }, 120_000);

  it("an origin without Range support: no exact reads, the general path over the spooled file", async () => {
    const res = await processRequest(app, { url: `${origin.url}/norange/seconds.mp4`, category: "video", stages: ["storyboard"] });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages!.storyboard).toMatchObject({ status: "done" });
    expect(result.stages!.storyboard!.method).toMatch(/^seek-per-tile \(.*Range support\)$/);
    const tiles = await tileColours(result.storyboard!);
    expect(tiles.map((colour) => nearestSecond(colour, secondColours(join(dir, "seconds.mp4"))))).toEqual(tiles.map((_, i) => i));
  }, 120_000);

  it("WebM has no sample tables here: the general path (one seek per tile) makes the storyboard", async () => {
    const path = join(dir, "seconds.webm");
    const res = await processRequest(app, { url: `${origin.url}/files/seconds.webm`, category: "video", stages: ["storyboard"] });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages!.storyboard).toMatchObject({ status: "done" });
    expect(result.stages!.storyboard!.method).toMatch(/^seek-per-tile/);
    const board = result.storyboard!;
    expect(board.tiles).toBe(6);
    const seconds = secondColours(path);
    const tiles = await tileColours(board);
    expect(tiles.map((colour) => nearestSecond(colour, seconds))).toEqual(tiles.map((_, i) => i));
  }, 120_000);

  it("the alternative, one ffmpeg selecting keyframes with -skip_frame nokey, reads the whole file", async () => {
    const size = statSync(join(dir, "big-faststart.mp4")).size;
    origin.reset();
    // Async: the origin serving it runs in this process.
    await promisify(execFile)("ffmpeg", ["-hide_banner", "-loglevel", "error", "-skip_frame", "nokey", "-i", `${origin.url}/files/big-faststart.mp4`,
      "-vf", "select='isnan(prev_selected_t)+gte(t-prev_selected_t\\,1)',scale=160:90,tile=10x3", "-frames:v", "1", "-f", "null", "-"]);
    console.info(`select filter: ${origin.stats.bytes} of ${size} bytes`);
    expect(origin.stats.bytes).toBeGreaterThan(size * 0.9);
  }, 120_000);

  it("the WebVTT track of the result parses: cue times a tile apart, every #xywh inside the sprite", async () => {
    const board = made!;
    expect(board).toBeDefined();
    const cues = parseVtt(storyboardVtt(board, "/api/v1/thumbnails/x.webp"));
    expect(cues).toHaveLength(board.tiles);
    const spriteWidth = board.columns * board.tileWidth;
    const spriteHeight = Math.ceil(board.tiles / board.columns) * board.tileHeight;
    cues.forEach((cue, i) => {
      expect(cue.start).toBeCloseTo(i * board.interval, 3);
      // The last cue ends at the video's duration, not a whole interval after it starts.
      expect(cue.end).toBeCloseTo(i + 1 < cues.length ? (i + 1) * board.interval : board.duration!, 3);
      const m = /^\/api\/v1\/thumbnails\/x\.webp#xywh=(\d+),(\d+),(\d+),(\d+)$/.exec(cue.text);
      expect(m).not.toBeNull();
      const [x, y, w, h] = m!.slice(1).map(Number) as [number, number, number, number];
      expect([w, h]).toEqual([board.tileWidth, board.tileHeight]);
      expect(x + w).toBeLessThanOrEqual(spriteWidth);
      expect(y + h).toBeLessThanOrEqual(spriteHeight);
    });
  });

  it("audio has no storyboard: the stage is skipped, not failed", async () => {
    const res = await processRequest(app, { url: `${origin.url}/files/programme.m4a`, category: "audio", stages: ["storyboard"] });
    expect(res.statusCode).toBe(200);
    expect(RunnerResponse.parse(res.json()).stages?.storyboard?.status).toBe("skipped");
  });
});

describe("waveform and loudness", () => {
  for (const name of ["programme.m4a", "stereo.flac"]) {
    it(`${name}: at least 100 peaks in [0,1], loudness within 0.5 of ffmpeg's ebur128`, async () => {
      const res = await processRequest(app, { url: `${origin.url}/files/${name}`, category: "audio", stages: ["metadata", "waveform"] });
      expect(res.statusCode).toBe(200);
      const result = RunnerResponse.parse(res.json());
      expect(result.stages?.waveform).toEqual({ status: "done" });
      const { peaks, perSecond } = result.waveform!;
      expect(peaks.length).toBeGreaterThanOrEqual(100);
      for (const peak of peaks) expect(peak >= 0 && peak <= 1).toBe(true);
      const seconds = result.metadata!.audio!.duration!.seconds;
      expect(peaks.length / perSecond).toBeCloseTo(seconds, 0);
      const reference = referenceLoudness(join(dir, name));
      const loudness = result.loudness!;
      expect(Math.abs(loudness.integratedLufs - reference.i)).toBeLessThanOrEqual(0.5);
      expect(Math.abs(loudness.rangeLu - reference.lra)).toBeLessThanOrEqual(0.5);
      expect(Math.abs(loudness.truePeakDbtp - reference.peak)).toBeLessThanOrEqual(0.5);
      console.info(`${name}: ${JSON.stringify(loudness)} vs ffmpeg ${JSON.stringify(reference)}`);
    }, 120_000);
  }

  it("the peaks follow the level: the loud middle third peaks higher than the quiet last third", async () => {
    const res = await processRequest(app, { url: `${origin.url}/files/programme.m4a`, category: "audio", stages: ["waveform"] });
    const { peaks, perSecond } = RunnerResponse.parse(res.json()).waveform!;
    const at = (second: number) => peaks[Math.floor(second * perSecond)]!;
    // volume 0.2, 0.6 then 0.1 of a full-scale sine (0.125 after the sine source's own 1/8 amplitude).
    expect(at(15)).toBeGreaterThan(2.5 * at(5));
    expect(at(5)).toBeGreaterThan(1.5 * at(25));
  }, 120_000);
});
