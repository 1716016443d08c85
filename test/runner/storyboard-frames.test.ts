/**
 * Storyboard tiles show the frame at their cue's start: each tile is compared with the frame ffmpeg itself gives
 * for `-ss <cue start> -i file -frames:v 1` on the local file (scaled to the tile), on clips whose keyframes are
 * sparser than the tiles (one keyframe in 5 s; 2 s GOPs with B-frames) by both of the runner's paths, and the
 * track's last cue ends at the media's duration (a 5.0xx s WebM gets no cue to 6 s).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { storyboardVtt } from "../../shared/media/storyboard-plan.ts";
import { RunnerResponse, type RunnerStoryboard } from "../../shared/shapes/runner.ts";
import { processRequest, sharp, testApp } from "../../testkit/runner/harness.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { parseVtt } from "../../testkit/vtt.ts";

const dir = join(import.meta.dirname, "..", ".fixtures", "storyboard-frames");

/** The hue turns 72 degrees a second, continuously, over moving test bars: every second looks different. */
const source = ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25,hue=h=72*t"];
const fixtures: Record<string, string[]> = {
  // One keyframe in 5 s (and B-frames): every tile but the first must be decoded forward from it.
  "one-keyframe.mp4": [...source, "-t", "5", "-c:v", "libx264", "-preset", "veryfast", "-g", "1000", "-keyint_min", "1000", "-sc_threshold", "0",
    "-bf", "2", "-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", "mp4"],
  // Keyframes every 2 s: the odd seconds are between two.
  "gop2.mp4": [...source, "-t", "6", "-c:v", "libx264", "-preset", "veryfast", "-g", "50", "-keyint_min", "50", "-sc_threshold", "0",
    "-bf", "3", "-pix_fmt", "yuv420p", "-f", "mp4"],
  // VP9 with one keyframe and Opus audio: WebM, the general path; its duration is not a whole second.
  "one-keyframe.webm": [...source, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "5",
    "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "1000", "-b:v", "400k", "-c:a", "libopus", "-f", "webm"],
};

function ensureFixtures(): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, args] of Object.entries(fixtures)) {
    const path = join(dir, name);
    if (existsSync(path)) continue;
    execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args, `${path}.partial`]);
    renameSync(`${path}.partial`, path);
  }
}

function keyframeTimes(path: string): number[] {
  const csv = execFileSync("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", path], { encoding: "utf8" });
  return csv.trim().split("\n").map((line) => line.split(",")).filter((f) => f[1]?.startsWith("K")).map((f) => Number(f[0]));
}

function probedDuration(path: string): number {
  return Number(execFileSync("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path], { encoding: "utf8" }).trim());
}

/** ffmpeg's own frame at `t` (accurate seek), scaled to the tile as RGB. */
function ffmpegFrame(path: string, t: number, width: number, height: number): Buffer {
  return execFileSync("ffmpeg", ["-v", "error", "-ss", t.toFixed(3), "-i", path, "-frames:v", "1",
    "-vf", `scale=${width}:${height}:flags=area`, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]);
}

async function tilePixels(board: RunnerStoryboard, i: number): Promise<Buffer> {
  return sharp(Buffer.from(board.base64, "base64")).extract({
    left: (i % board.columns) * board.tileWidth, top: Math.floor(i / board.columns) * board.tileHeight, width: board.tileWidth, height: board.tileHeight,
  }).removeAlpha().raw().toBuffer();
}

/** Mean absolute difference per channel value (0-255). */
function difference(a: Buffer, b: Buffer): number {
  expect(a.length).toBe(b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

/**
 * Each cue's tile against ffmpeg's frame at the cue's start: close to it (the sprite is lossy WebP), and closer
 * to it than to ffmpeg's frame at any other cue's start.
 */
async function expectTilesMatchFfmpeg(path: string, board: RunnerStoryboard): Promise<Array<{ start: number; end: number }>> {
  const cues = parseVtt(storyboardVtt(board, "/s.webp"));
  const references = cues.map((cue) => ffmpegFrame(path, cue.start, board.tileWidth, board.tileHeight));
  for (const [k, cue] of cues.entries()) {
    const [x, y] = /#xywh=(\d+),(\d+)/.exec(cue.text)!.slice(1).map(Number) as [number, number];
    const tile = x / board.tileWidth + (y / board.tileHeight) * board.columns;
    const pixels = await tilePixels(board, tile);
    const own = difference(pixels, references[k]!);
    const others = references.map((ref, m) => (m === k ? Infinity : difference(pixels, ref)));
    expect(own, `cue ${k} (${cue.start}s): difference to ffmpeg's frame`).toBeLessThan(12);
    expect(own, `cue ${k}: nearer its own frame than any other cue's`).toBeLessThan(Math.min(...others));
  }
  return cues;
}

let origin: LoopbackOrigin;
let app: RunnerApp;

beforeAll(async () => {
  ensureFixtures();
  origin = await startLoopbackOrigin([dir]);
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, RUNNER_JOB_TIMEOUT_MS: "240000", RUNNER_PROCESS_TIMEOUT_MS: "60000" });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await origin?.close();
});

async function storyboardOf(file: string, prefix = "files") {
  const res = await processRequest(app, { url: `${origin.url}/${prefix}/${file}`, category: "video", stages: ["storyboard"] });
  expect(res.statusCode).toBe(200);
  const result = RunnerResponse.parse(res.json());
  expect(result.stages!.storyboard!.status, JSON.stringify(result.stages)).toBe("done");
  return { board: result.storyboard!, stage: result.stages!.storyboard! };
}

describe("storyboard tiles show the frame at their cue's start", () => {
  it("one keyframe in 5 s, by the sample tables: five different tiles, each ffmpeg's frame at its cue", async () => {
    const path = join(dir, "one-keyframe.mp4");
    expect(keyframeTimes(path)).toEqual([0]);
    const { board, stage } = await storyboardOf("one-keyframe.mp4");
    expect(stage.method).toBe("frames-by-range");
    expect(board).toMatchObject({ tiles: 5, interval: 1 });
    expect(board.frameTimes).toEqual([0, 1, 2, 3, 4]);
    const cues = await expectTilesMatchFfmpeg(path, board);
    expect(cues.map((c) => [c.start, c.end])).toEqual([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]]);
  }, 180_000);

  it("2 s GOPs with B-frames: the odd seconds are decoded forward, not the keyframe before", async () => {
    const path = join(dir, "gop2.mp4");
    expect(keyframeTimes(path)).toEqual([0, 2, 4]);
    const { board, stage } = await storyboardOf("gop2.mp4");
    expect(stage.method).toBe("frames-by-range");
    expect(board.frameTimes).toEqual([0, 1, 2, 3, 4, 5]);
    await expectTilesMatchFfmpeg(path, board);
  }, 180_000);

  it("when the budget left cannot pay for decoding forward, tiles show keyframes and the cues say so", async () => {
    const path = join(dir, "gop2.mp4");
    // The whole budget is a little over the reserve kept for the rest of the job: nothing is left to decode forward.
    const res = await processRequest(app, {
      url: `${origin.url}/files/gop2.mp4`, category: "video", stages: ["storyboard"], budget: { requests: 100, bytes: 4 * 1024 * 1024 + 64 * 1024 },
    });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.stages!.storyboard).toMatchObject({ status: "done", method: "keyframes-by-range" });
    const board = result.storyboard!;
    expect(board.frameTimes).toEqual([0, 0, 2, 2, 4, 4]);
    const cues = await expectTilesMatchFfmpeg(path, board);
    expect(cues.map((c) => c.start)).toEqual([0, 2, 4]);
    expect(cues.at(-1)!.end).toBeCloseTo(board.duration!, 3);
  }, 180_000);

  it("the general path (no Range support) seeks exactly: the same frames", async () => {
    const path = join(dir, "gop2.mp4");
    const { board, stage } = await storyboardOf("gop2.mp4", "norange");
    expect(stage.method).toMatch(/^seek-per-tile/);
    await expectTilesMatchFfmpeg(path, board);
  }, 180_000);

  it("a WebM with one keyframe: frames at the cue times, and the last cue ends at the duration", async () => {
    const path = join(dir, "one-keyframe.webm");
    const duration = probedDuration(path);
    expect(duration % 1).toBeGreaterThan(0); // 5.0xx s: not a whole second
    const { board, stage } = await storyboardOf("one-keyframe.webm");
    expect(stage.method).toMatch(/^seek-per-tile/);
    expect(board.tiles).toBe(5);
    const cues = await expectTilesMatchFfmpeg(path, board);
    expect(cues.at(-1)!.end).toBeCloseTo(duration, 2);
    expect(cues.at(-1)!.end).toBeLessThan(5.5);
  }, 180_000);
});

describe("the track's cues when tiles show keyframes", () => {
  const grid = { tiles: 5, columns: 5, tileWidth: 160, tileHeight: 90, interval: 1, duration: 5.008 };

  it("tiles showing the same keyframe share one cue, each cue starting at its frame's time", () => {
    const cues = parseVtt(storyboardVtt({ ...grid, frameTimes: [0, 0, 2, 2, 4] }, "/s.webp"));
    expect(cues.map((c) => [c.start, c.end, c.text])).toEqual([
      [0, 2, "/s.webp#xywh=0,0,160,90"], [2, 4, "/s.webp#xywh=320,0,160,90"], [4, 5.008, "/s.webp#xywh=640,0,160,90"],
    ]);
  });

  it("one keyframe, not decoded forward: one cue over the whole video", () => {
    const cues = parseVtt(storyboardVtt({ ...grid, frameTimes: [0, 0, 0, 0, 0] }, "/s.webp"));
    expect(cues.map((c) => [c.start, c.end])).toEqual([[0, 5.008]]);
  });

  it("frames within half an interval of their tiles: cues a tile apart, the last ending at the duration", () => {
    const cues = parseVtt(storyboardVtt({ ...grid, frameTimes: [0, 1.04, 2, 3.2, 4] }, "/s.webp"));
    expect(cues.map((c) => [c.start, c.end])).toEqual([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5.008]]);
  });
});
