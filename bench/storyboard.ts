/**
 * Storyboard (expand=storyboard) cost, the ways side by side in one run against the same loopback origin, each
 * on a fresh job source (empty block cache), after the same ffprobe a job runs first:
 *   seek-per-tile:      one exact ffmpeg `-ss <tile time>` per tile through the Range proxy (the path for WebM
 *                       and the rest: the keyframe before the time and the packets up to it)
 *   seek-per-keyframe:  the same ffmpeg seek, but once per distinct keyframe the sample tables pick, at its
 *                       exact time (ffmpeg itself reads the moov and that keyframe's neighbourhood)
 *   keyframes-by-range: the sample tables' samples read by exact Range requests and decoded in one ffmpeg
 *                       run from stdin (media-runner/src/media/storyboard.ts, what the runner does now): the
 *                       keyframes, and where they are sparser than the tiles the frames after them up to each
 *                       tile's time (reported as frames-by-range)
 * for 30 s 720p and 1080p H.264 faststart MP4s of about 30 MB (8 Mb/s with noise) with a keyframe every 2 s, and
 * the test suite's 720p one with a keyframe every second. Bytes and requests are counted by the origin and
 * cover the storyboard only (ffprobe's are reported apart, and "job" is both together as a share of the file);
 * times are medians over the rounds.
 *
 *   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && media-runner/node_modules/.bin/tsx bench/storyboard.ts [rounds]'
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../media-runner/src/config.ts";
import { JobBudget, meteredDispatcher } from "../media-runner/src/fetch/job-budget.ts";
import { systemResolver } from "../media-runner/src/fetch/resolver.ts";
import { createSsrfAgent } from "../media-runner/src/fetch/ssrf-agent.ts";
import { findBinaries } from "../media-runner/src/media/binaries.ts";
import { probe } from "../media-runner/src/media/ffprobe.ts";
import { extractFrame } from "../media-runner/src/media/frame.ts";
import { durationSeconds, toVideoMetadata, videoStream } from "../media-runner/src/media/metadata.ts";
import { selectKeyframes } from "../media-runner/src/media/mp4-keyframes.ts";
import { buildStoryboard, tileTimes } from "../media-runner/src/media/storyboard.ts";
import { readMoov } from "../media-runner/src/media/mp4-source.ts";
import { newSource, type JobContext } from "../media-runner/src/pipeline/context.ts";
import { RangeProxy } from "../media-runner/src/proxy/range-proxy.ts";
import { storyboardPlan } from "../shared/media/storyboard-plan.ts";
import { startLoopbackOrigin } from "../testkit/loopback-origin.ts";

const rounds = Number(process.argv[2] ?? 3);
const dir = join(tmpdir(), "storyboard-bench");

const noisy = (size: string, gop: number) => ["-f", "lavfi", "-i", `testsrc2=size=${size}:rate=25,noise=alls=30:allf=t`,
  "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "30", "-c:v", "libx264", "-preset", "ultrafast", "-g", String(gop),
  "-b:v", "8M", "-minrate", "8M", "-maxrate", "8M", "-bufsize", "4M", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k",
  "-movflags", "+faststart", "-f", "mp4"];
const files: Record<string, string[]> = {
  "720p-gop2s.mp4": noisy("1280x720", 50),
  "1080p-gop2s.mp4": noisy("1920x1080", 50),
  "720p-gop1s.mp4": noisy("1280x720", 25),
};

const methods = ["seek-per-tile", "seek-per-keyframe", "keyframes-by-range"] as const;
type Method = (typeof methods)[number];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main() {
  mkdirSync(dir, { recursive: true });
  for (const [name, args] of Object.entries(files)) {
    const path = join(dir, name);
    if (existsSync(path)) continue;
    console.log(`generating ${name} (once, cached in ${dir})...`);
    execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args, `${path}.partial`]);
    renameSync(`${path}.partial`, path);
  }
  const origin = await startLoopbackOrigin([dir]);
  const config = loadConfig({ RUNNER_TOKEN: "bench-token-0123456789abcdef", PATH: process.env.PATH, SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
  const binaries = findBinaries({ pathVariable: process.env.PATH ?? "" });
  const proxy = new RangeProxy();
  await proxy.start();
  const agent = createSsrfAgent({ allowlist: config.allowlist, resolve: systemResolver, connectTimeoutMs: config.fetchTimeoutMs });
  const rows: string[] = [];
  try {
    for (const name of Object.keys(files)) {
      const size = statSync(join(dir, name)).size;
      const figures: Record<Method, { bytes: number[]; requests: number[]; ms: number[]; probeBytes: number[] }> = {
        "seek-per-tile": { bytes: [], requests: [], ms: [], probeBytes: [] },
        "seek-per-keyframe": { bytes: [], requests: [], ms: [], probeBytes: [] },
        "keyframes-by-range": { bytes: [], requests: [], ms: [], probeBytes: [] },
      };
      let tiles = 0;
      let keyframes = 0;
      let tablesMethod = "keyframes-by-range";
      for (let round = 0; round < rounds; round++) {
        for (const method of methods) {
          const budget = new JobBudget();
          const ctx: JobContext = { config, binaries, proxy, dispatcher: meteredDispatcher(agent, budget), signal: new AbortController().signal, budget };
          origin.reset();
          const source = newSource(`${origin.url}/files/${name}`, ctx);
          await source.open();
          const registration = proxy.register(source, { paced: true });
          try {
            const engine = { ffmpeg: binaries.ffmpeg, maxPixels: config.maxDecodePixels, httpProxy: proxy.baseUrl, timeoutMs: 120_000 };
            const probed = await probe(registration.url, { ffprobe: binaries.ffprobe, timeoutMs: 60_000, maxPixels: config.maxDecodePixels, httpProxy: proxy.baseUrl });
            const video = videoStream(probed)!;
            const facts = toVideoMetadata(probed, video);
            const duration = durationSeconds(probed, video)!;
            const before = { bytes: origin.stats.bytes, requests: origin.stats.requests.length };
            const started = performance.now();
            if (method === "seek-per-keyframe") {
              // The same picks as keyframes-by-range (the moov is in the block cache after ffprobe), then one seek each.
              const moov = (await readMoov(source, source.size!))!;
              const plan = storyboardPlan(duration);
              const selection = selectKeyframes(moov, tileTimes(duration, plan.interval, plan.tiles), source.size)!;
              keyframes = selection.keyframes.length;
              for (const k of selection.keyframes) {
                await extractFrame(registration.url, k.time, { ...engine, mode: "keyframe-before", maxPx: 160 });
              }
            } else {
              const built = await buildStoryboard(registration.url, { durationSeconds: duration, width: facts.width ?? 0, height: facts.height ?? 0 }, engine,
                method === "keyframes-by-range" ? { source, formatName: probed.format?.format_name, maxRequests: 48 } : undefined);
              // The sample tables' path shows the frame at each tile (frames-by-range), or keyframes past its bounds.
              const ran = built.method === "frames-by-range" ? "keyframes-by-range" : built.method;
              if (ran !== method) throw new Error(`${name}: ${method} ran as ${built.method} (${built.fallback})`);
              if (method === "keyframes-by-range") tablesMethod = built.method;
              tiles = built.storyboard.tiles;
            }
            figures[method].ms.push(performance.now() - started);
            figures[method].bytes.push(origin.stats.bytes - before.bytes);
            figures[method].requests.push(origin.stats.requests.length - before.requests);
            figures[method].probeBytes.push(before.bytes);
          } finally {
            registration.release();
          }
        }
      }
      for (const method of methods) {
        const f = figures[method];
        const bytes = median(f.bytes);
        rows.push([name.padEnd(18), `${(size / 1e6).toFixed(1)} MB`.padStart(8), (method === "keyframes-by-range" ? tablesMethod : method).padEnd(19), String(method === "seek-per-keyframe" ? keyframes : tiles).padStart(5),
          `${bytes}`.padStart(10), `${((100 * bytes) / size).toFixed(1)} %`.padStart(8), String(median(f.requests)).padStart(5),
          `${Math.round(median(f.ms))} ms`.padStart(9), `${median(f.probeBytes)}`.padStart(9),
          `${((100 * (bytes + median(f.probeBytes))) / size).toFixed(1)} %`.padStart(7)].join("  "));
      }
    }
  } finally {
    await proxy.stop();
    await agent.close();
    await origin.close();
  }
  console.log(`\nstoryboard only (after the job's ffprobe), median of ${rounds} rounds; bytes and requests counted by the origin`);
  console.log(["file".padEnd(18), "size".padStart(8), "method".padEnd(19), "runs".padStart(5), "bytes".padStart(10), "of file".padStart(8),
    "reqs".padStart(5), "time".padStart(9), "ffprobe B".padStart(9), "job".padStart(7)].join("  "));
  for (const row of rows) console.log(row);
}

await main();
