/**
 * Runner vs the hand-written baseline, side by side in one run against the same loopback origin:
 *   runner:   POST /v1/process {category: "video", stages: metadata, thumbnail, placeholder, palette}
 *   baseline: `ffprobe URL` (duration read from its output), then `ffmpeg -ss T -i URL -frames:v 1 out.jpg`
 *             with T = 10% of the duration, the same representative time the runner uses.
 * for a 60 s 1080p H.264/AAC MP4, faststart and moov-at-end. Prints median wall time, the time ratio and
 * the bytes each pulled from the origin (counted by the origin). Goal: ratio <= 1.3 and fewer bytes.
 *
 *   npm run bench:runner            (or: media-runner/node_modules/.bin/tsx bench/runner-vs-ffmpeg.ts [rounds])
 * Loopback only; run it inside `unshare -n` if you like (see README).
 */
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { startLoopbackOrigin, type LoopbackOrigin } from "../testkit/loopback-origin.ts";

const run = promisify(execFile);
const rounds = Number(process.argv[2] ?? 5);
const dir = join(tmpdir(), "media-runner-bench");
const token = "bench-token-0123456789abcdef";
const variants = { faststart: "bench-1080p-faststart.mp4", "moov-at-end": "bench-1080p-moov-end.mp4" } as const;

async function generate(): Promise<void> {
  await mkdir(dir, { recursive: true });
  const moovEnd = join(dir, variants["moov-at-end"]);
  const faststart = join(dir, variants.faststart);
  if (!existsSync(moovEnd)) {
    console.log("generating a 60 s 1080p H.264/AAC MP4 (once, cached in %s)...", dir);
    await run("ffmpeg", [
      "-hide_banner", "-loglevel", "error", "-y",
      "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=60",
      "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=60",
      "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "4M", "-maxrate", "4M", "-bufsize", "8M", "-pix_fmt", "yuv420p",
      "-c:a", "aac", "-b:a", "128k", "-shortest", `${moovEnd}.tmp.mp4`,
    ]);
    await run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", `${moovEnd}.tmp.mp4`, "-c", "copy", "-movflags", "+faststart", faststart]);
    await run("mv", [`${moovEnd}.tmp.mp4`, moovEnd]);
  }
}

async function startRunner(origin: LoopbackOrigin): Promise<{ url: string; stop: () => Promise<void> }> {
  const runnerDir = new URL("../media-runner/", import.meta.url).pathname;
  const child = spawn(process.execPath, ["--import", "tsx", "src/server.ts", "--exit-on-stdin-close"], {
    cwd: runnerDir,
    env: { PATH: process.env.PATH ?? "", RUNNER_TOKEN: token, RUNNER_PORT: "0", SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` },
    stdio: ["pipe", "pipe", "inherit"],
  });
  for await (const line of createInterface({ input: child.stdout! })) {
    const match = /listening on (http:\/\/\S+)/.exec(line);
    if (match) {
      return {
        url: match[1]!,
        stop: () => new Promise((resolve) => { child.once("exit", () => resolve()); child.kill("SIGTERM"); }),
      };
    }
  }
  throw new Error("runner did not start");
}

async function runnerOnce(runnerUrl: string, url: string) {
  const response = await fetch(`${runnerUrl}/v1/process`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ url, category: "video", stages: ["metadata", "thumbnail", "placeholder", "palette"] }),
  });
  const body = (await response.json()) as { thumbnail?: unknown; metadata?: { video?: { duration?: { seconds: number } } } };
  if (!response.ok || !body.thumbnail || !body.metadata?.video?.duration) throw new Error(`runner failed: ${JSON.stringify(body)}`);
}

async function baselineOnce(url: string) {
  // A plain `ffprobe URL` prints its report on stderr; the user reads the duration from it.
  const { stderr } = await run("ffprobe", ["-hide_banner", url]);
  const match = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(stderr);
  if (!match) throw new Error("ffprobe printed no duration");
  const seconds = Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]);
  await run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-ss", (seconds * 0.1).toFixed(3), "-i", url, "-frames:v", "1", join(dir, "baseline.jpg")]);
}

async function measure(origin: LoopbackOrigin, work: () => Promise<void>) {
  origin.reset();
  const started = performance.now();
  await work();
  return { ms: performance.now() - started, bytes: origin.stats.bytes, requests: origin.stats.requests.length };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

async function main() {
  await generate();
  const origin = await startLoopbackOrigin([dir]);
  const runner = await startRunner(origin);
  const rows: string[] = [];
  try {
    for (const [variant, file] of Object.entries(variants)) {
      const url = `${origin.url}/files/${file}`;
      await runnerOnce(runner.url, url); // warm-up: first sharp/ffmpeg start, page cache
      await baselineOnce(url);
      const r: Awaited<ReturnType<typeof measure>>[] = [];
      const b: Awaited<ReturnType<typeof measure>>[] = [];
      for (let i = 0; i < rounds; i++) {
        // Alternate so that neither side always runs on a warmer machine.
        r.push(await measure(origin, () => runnerOnce(runner.url, url)));
        b.push(await measure(origin, () => baselineOnce(url)));
      }
      const rm_ = median(r.map((x) => x.ms));
      const bm = median(b.map((x) => x.ms));
      rows.push([
        variant.padEnd(12),
        `${rm_.toFixed(0).padStart(6)} ms`,
        `${bm.toFixed(0).padStart(6)} ms`,
        `${(rm_ / bm).toFixed(2).padStart(5)}x`,
        `${mb(median(r.map((x) => x.bytes))).padStart(9)} (${median(r.map((x) => x.requests))} req)`,
        `${mb(median(b.map((x) => x.bytes))).padStart(9)} (${median(b.map((x) => x.requests))} req)`,
      ].join("  "));
    }
  } finally {
    await runner.stop();
    await origin.close();
  }
  console.log(`\n60 s 1080p H.264/AAC MP4, ${rounds} rounds each, medians (loopback origin)`);
  console.log(["variant".padEnd(12), "   runner", " baseline", " ratio", "runner bytes      ", "baseline bytes"].join("  "));
  for (const row of rows) console.log(row);
  console.log("ratio = runner time / baseline time (goal <= 1.3); bytes = pulled from the origin");
  if (process.argv.includes("--clean")) await rm(dir, { recursive: true, force: true });
}

await main();
