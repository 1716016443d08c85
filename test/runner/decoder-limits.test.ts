/**
 * Decoder bounds (issue 15, item 3, runner side): an MP4 whose sample table declares millions of entries
 * (a 70 KB file that made ffprobe allocate 24 bytes per entry: 12 M entries ~330 MB, 80 M ~1.9 GB) is
 * answered in time with a clean result while the runner and its engine children stay small; an image over
 * the pixel limit is refused before decoding; every engine run carries the bounds.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ffmpegOutputBoundArgs, safeInputArgs } from "../../media-runner/src/media/engine-args.ts";
import { openImage } from "../../media-runner/src/media/image-decode.ts";
import { hlsInputArgs } from "../../media-runner/src/proxy/hls-input-args.ts";
import {
  engineAddressSpaceBytes, engineMaxAllocBytes, engineMaxStreams, engineThreads, probeAnalyzeMicroseconds, probeSizeBytes, stillMaxAllocBytes,
} from "../../media-runner/src/media/engine-limits.ts";
import type { RunnerError } from "../../media-runner/src/errors.ts";
import { probe } from "../../media-runner/src/media/ffprobe.ts";
import { extractFrame } from "../../media-runner/src/media/frame.ts";
import { limitedCommand, runProcess } from "../../media-runner/src/media/run-process.ts";
import { RunnerErrorBody, RunnerHealth, RunnerResponse } from "../../shared/shapes/runner.ts";
import { testToken } from "../../testkit/runner/harness.ts";
import { compiledRunner } from "../../testkit/runner-process.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";

const fixtures = inject("runnerFixturesDir");
const runnerDir = new URL("../../media-runner/", import.meta.url).pathname;
const jobTimeoutMs = 30_000;
const MB = 1024 * 1024;

// ---- ISO-BMFF rewriting: keep the fixture's sample description, replace its sample table ----

interface Box { type: string; payload: Buffer }

function parseBoxes(data: Buffer): Box[] {
  const boxes: Box[] = [];
  for (let offset = 0; offset + 8 <= data.length; ) {
    const size = data.readUInt32BE(offset);
    if (size < 8 || offset + size > data.length) throw new Error("fixture box sizes must be plain 32-bit");
    boxes.push({ type: data.toString("latin1", offset + 4, offset + 8), payload: data.subarray(offset + 8, offset + size) });
    offset += size;
  }
  return boxes;
}

function box(type: string, ...parts: Buffer[]): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + parts.reduce((sum, part) => sum + part.length, 0));
  header.write(type, 4, "latin1");
  return Buffer.concat([header, ...parts]);
}

/** A full box (version 0, no flags) of 32-bit fields. */
function fullBox(type: string, ...fields: number[]): Buffer {
  const body = Buffer.alloc(4 + 4 * fields.length);
  fields.forEach((value, i) => body.writeUInt32BE(value, 4 + 4 * i));
  return box(type, body);
}

const containers = new Set(["moov", "trak", "mdia", "minf"]);

/**
 * One chunk of `samples` samples of 4 bytes each, one time-to-sample run: a handful of bytes that the mov
 * demuxer expands into one index entry per sample.
 */
function rewrite(boxes: Box[], samples: number, chunkOffset: number): Buffer {
  return Buffer.concat(boxes.map(({ type, payload }) => {
    if (containers.has(type)) return box(type, rewrite(parseBoxes(payload), samples, chunkOffset));
    if (type !== "stbl") return box(type, payload);
    const stsd = parseBoxes(payload).find((child) => child.type === "stsd")!;
    return box("stbl",
      box("stsd", stsd.payload),
      fullBox("stts", 1, samples, 1),
      fullBox("stsc", 1, 1, samples, 1),
      fullBox("stsz", 4, samples),
      fullBox("stco", 1, chunkOffset));
  }));
}

function sampleTableBomb(mp4: Buffer, samples: number): Buffer {
  const top = parseBoxes(mp4);
  // stco is fixed-size, so one pass finds where mdat's payload lands and the second writes it.
  const first = rewrite(top, samples, 0);
  const mdatPayload = first.indexOf("mdat", 0, "latin1") + 4;
  const out = rewrite(top, samples, mdatPayload);
  expect(out.length).toBe(first.length);
  return out;
}

// ---- the runner as a process, and memory readings from /proc ----

function residentBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0; // exited meanwhile
  }
}

async function childrenOf(pid: number): Promise<number[]> {
  const out: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name "(...)": state, then the parent pid.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Samples the runner's and its children's resident memory until stopped; returns the peaks. */
function watchMemory(pid: number) {
  let runner = 0;
  let child = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      runner = Math.max(runner, residentBytes(pid));
      for (const kid of await childrenOf(pid)) child = Math.max(child, residentBytes(kid));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { runner, child };
  };
}

let work: string;
let origin: LoopbackOrigin;
let runner: ChildProcess;
let runnerUrl: string;

async function addressLine(child: ChildProcess): Promise<string> {
  for await (const line of createInterface({ input: child.stdout! })) {
    const match = /listening on (http:\/\/\S+)/.exec(line);
    if (match) return match[1]!;
  }
  throw new Error("runner exited without printing its address");
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "decoder-limits-"));
  const mp4 = await readFile(join(fixtures, "no-audio.mp4"));
  await writeFile(join(work, "stsz-12m.mp4"), sampleTableBomb(mp4, 12_000_000));
  await writeFile(join(work, "stsz-80m.mp4"), sampleTableBomb(mp4, 80_000_000));
  await copyFile(join(fixtures, "bomb.png"), join(work, "bomb.png"));
  await copyFile(join(fixtures, "no-audio.mp4"), join(work, "no-audio.mp4"));
  origin = await startLoopbackOrigin([work]);
  runner = spawn(process.execPath, [await compiledRunner()], {
    cwd: runnerDir,
    env: {
      PATH: process.env.PATH ?? "", RUNNER_TOKEN: testToken, RUNNER_PORT: "0",
      SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, RUNNER_JOB_TIMEOUT_MS: String(jobTimeoutMs),
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  runnerUrl = await addressLine(runner);
});

afterAll(async () => {
  if (runner.exitCode === null) {
    runner.kill("SIGTERM");
    await once(runner, "exit");
  }
  await origin?.close();
  await rm(work, { recursive: true, force: true });
});

async function processUrl(name: string, category: "video" | "image") {
  const started = performance.now();
  const res = await fetch(`${runnerUrl}/v1/process`, {
    method: "POST",
    headers: { authorization: `Bearer ${testToken}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `${origin.url}/files/${name}`, category, stages: ["metadata", "thumbnail"] }),
  });
  return { status: res.status, body: (await res.json()) as unknown, ms: performance.now() - started };
}

async function healthy(): Promise<boolean> {
  const res = await fetch(`${runnerUrl}/v1/health`);
  return res.ok && RunnerHealth.parse(await res.json()).status === "ok";
}

describe("an MP4 whose sample table declares millions of entries", () => {
  let baseline = 0;
  beforeAll(async () => {
    // Warm the runner (modules, sharp) on a real video so its baseline is its working size.
    expect((await processUrl("no-audio.mp4", "video")).status).toBe(200);
    baseline = residentBytes(runner.pid!);
  });

  for (const [name, entries] of [["stsz-12m.mp4", "12 M"], ["stsz-80m.mp4", "80 M"]] as const) {
    it(`${entries} entries: a clean answer within the job deadline, engines and runner stay small`, async () => {
      const stop = watchMemory(runner.pid!);
      const { status, body, ms } = await processUrl(name, "video");
      const peaks = await stop();
      console.info(`${name}: ${status} in ${Math.round(ms)} ms; peak RSS runner ${(peaks.runner / MB).toFixed(0)} MB `
        + `(baseline ${(baseline / MB).toFixed(0)} MB), engine child ${(peaks.child / MB).toFixed(0)} MB`);
      expect(ms).toBeLessThan(jobTimeoutMs);
      if (status === 200) {
        // Partial: what ffprobe read, and a preview that failed with a reason rather than a huge index.
        const result = RunnerResponse.parse(body);
        expect(result.metadata?.video?.codec).toBe("h264");
        expect(result.stages?.thumbnail?.status).toBeDefined();
      } else {
        expect(status).toBe(422);
        expect(["CORRUPT_MEDIA", "UNSUPPORTED_MEDIA"]).toContain(RunnerErrorBody.parse(body).error.code);
      }
      expect(JSON.stringify(body)).not.toMatch(/\bat .+\.ts:\d+/); // no stack trace
      expect(await healthy()).toBe(true);
      // Unbounded, ffprobe alone reached ~330 MB (12 M) and ~1.9 GB (80 M); bounded it stays near its ~55 MB.
      expect(peaks.child).toBeGreaterThan(0); // the sampler saw the engines
      expect(peaks.child).toBeLessThan(160 * MB);
      expect(peaks.runner - baseline).toBeLessThan(100 * MB);
    });
  }
});

describe("an image over the pixel limit", () => {
  it("is refused from its header before decoding, and the runner stays small", async () => {
    // The 60000x60000 zero-row PNG of the runner fixtures (media-image.test.ts checks the bytes read).
    const before = residentBytes(runner.pid!);
    const { status, body, ms } = await processUrl("bomb.png", "image");
    expect(status).toBe(422);
    expect(RunnerErrorBody.parse(body).error.code).toBe("IMAGE_TOO_LARGE");
    expect(ms).toBeLessThan(2_000);
    expect(residentBytes(runner.pid!) - before).toBeLessThan(64 * MB);
    expect(await healthy()).toBe(true);
  });
});

describe("engine arguments and process limits", () => {
  const option = (args: readonly string[], name: string) => args[args.lastIndexOf(name) + 1];

  it("every proxied input carries the allocation, stream, probe and thread bounds", () => {
    const args = safeInputArgs(50_000_000);
    expect(option(args, "-max_alloc")).toBe(String(engineMaxAllocBytes));
    expect(option(args, "-max_streams")).toBe(String(engineMaxStreams));
    expect(option(args, "-probesize")).toBe(String(probeSizeBytes));
    expect(option(args, "-analyzeduration")).toBe(String(probeAnalyzeMicroseconds));
    expect(option(args, "-threads")).toBe(String(engineThreads));
    expect(option(args, "-max_pixels")).toBe("50000000");
    // Below the 12 M-entry index (24 bytes an entry), above a 16-bit plane at the default 50 Mpx.
    expect(engineMaxAllocBytes).toBeLessThan(12_000_000 * 24);
    expect(engineMaxAllocBytes).toBeGreaterThan(50_000_000 * 2);
  });

  it("ffmpeg's output side bounds filter and encoder threads", () => {
    const args = ffmpegOutputBoundArgs();
    expect(option(args, "-filter_threads")).toBe(String(engineThreads));
    expect(option(args, "-threads")).toBe(String(engineThreads));
  });

  it("the probe and frame runs pass them (a stand-in engine echoes its arguments)", async () => {
    const echo = join(work, "echo-args.sh");
    // Arguments on stdout (the frame's "PNG") and stderr (the probe's error detail, as it exits 1).
    await writeFile(echo, "#!/bin/sh\nprintf '%s\\n' \"$@\"\nprintf '%s\\n' \"$@\" >&2\ncase \" $* \" in *\" -print_format \"*) exit 1;; esac\n", { mode: 0o755 });
    const frame = (await extractFrame("http://127.0.0.1:9/x", 1, { ffmpeg: echo, timeoutMs: 5_000, maxPixels: 1000, maxPx: 64, mode: "exact" }))!.toString().split("\n");
    const probed = await probe("http://127.0.0.1:9/x", { ffprobe: echo, timeoutMs: 5_000, maxPixels: 1000 }).then(() => "", (e: RunnerError) => e.detail ?? "");
    for (const args of [frame, probed.split("\n")]) {
      expect(option(args, "-max_alloc")).toBe(String(engineMaxAllocBytes));
      expect(option(args, "-max_streams")).toBe(String(engineMaxStreams));
      expect(option(args, "-probesize")).toBe(String(probeSizeBytes));
      expect(args).toContain("-threads");
      expect(args).toContain("-analyzeduration");
    }
    expect(option(frame, "-filter_threads")).toBe(String(engineThreads));
    // Output-side threads come after the input.
    expect(frame.lastIndexOf("-threads")).toBeGreaterThan(frame.indexOf("-i"));
  });

  it("every engine argument list carries the bounds: plain, still, HLS/DASH preview (a stand-in engine echoes them)", async () => {
    const failing = join(work, "echo-args-fail.sh");
    // Arguments on stderr, exit 1: each caller puts the engine's stderr in its error's detail.
    await writeFile(failing, "#!/bin/sh\nprintf '%s\\n' \"$@\" >&2\nexit 1\n", { mode: 0o755 });
    const detail = (run: Promise<unknown>) => run.then(() => [] as string[], (e: RunnerError) => (e.detail ?? "").split("\n"));
    const hlsFrame = await detail(extractFrame("http://127.0.0.1:9/m/x/0/index.m3u8", 0, {
      ffmpeg: failing, timeoutMs: 5_000, maxPixels: 1000, maxPx: 64, mode: "exact", inputArgs: hlsInputArgs(1000),
    }));
    const bmpHead = Buffer.concat([Buffer.from("BM"), Buffer.alloc(30)]);
    const still = await detail(openImage(join(work, "none.bmp"), bmpHead, { ffmpeg: failing, timeoutMs: 5_000, maxPixels: 1000 }));
    const lists = { plain: safeInputArgs(1000), hls: hlsInputArgs(1000), hlsFrame };
    for (const [name, args] of Object.entries(lists)) {
      expect(option(args, "-max_alloc"), name).toBe(String(engineMaxAllocBytes));
      expect(option(args, "-max_streams"), name).toBe(String(engineMaxStreams));
      expect(option(args, "-probesize"), name).toBe(String(probeSizeBytes));
      expect(args, name).toContain("-analyzeduration");
      expect(args[args.indexOf("-threads") + 1], name).toBe(String(engineThreads));
      expect(option(args, "-max_pixels"), name).toBe("1000");
    }
    // The HLS preview's input bounds are the plain ones, value for value (one list, not a copy).
    const bounds = (args: string[]) => ["-max_alloc", "-max_streams", "-probesize", "-analyzeduration", "-threads", "-max_pixels", "-recv_buffer_size"]
      .map((name) => args[args.indexOf(name) + 1]);
    expect(bounds(lists.hls)).toEqual(bounds(lists.plain));
    expect(option(still, "-max_alloc")).toBe(String(stillMaxAllocBytes(1000)));
    expect(still[still.indexOf("-threads") + 1]).toBe(String(engineThreads));
    expect(option(still, "-max_pixels")).toBe("1000");
  });

  it("ffprobe accepts the bounds", async () => {
    const result = await runProcess("ffprobe", ["-hide_banner", "-loglevel", "error", ...safeInputArgs(50_000_000),
      "-print_format", "json", "-show_streams", `${origin.url}/files/no-audio.mp4`], { timeoutMs: 10_000, maxStdoutBytes: MB, httpProxy: origin.url });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.toString()).toContain("\"codec_name\": \"h264\"");
  });

  it("engines run under an address-space limit (prlimit)", async () => {
    const [file, args] = limitedCommand("ffprobe", ["-version"], engineAddressSpaceBytes());
    expect(file).toMatch(/prlimit$/);
    expect(args.slice(0, 3)).toEqual([`--as=${engineAddressSpaceBytes()}`, "--", "ffprobe"]);
    // The child itself reports the limit (sh's ulimit -v is in KiB).
    const shown = await runProcess("sh", ["-c", "ulimit -v"], { timeoutMs: 5_000, maxStdoutBytes: 1024 });
    expect(Number(shown.stdout.toString().trim()) * 1024).toBe(engineAddressSpaceBytes());
    // And it bites: under 150 MiB ffprobe cannot even map its libraries, and fails cleanly.
    const starved = await runProcess("ffprobe", ["-version"], { timeoutMs: 5_000, maxStdoutBytes: MB, addressSpaceBytes: 150 * MB });
    expect(starved.code).not.toBe(0);
  });
});
