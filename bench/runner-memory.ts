/**
 * The runner's memory under load (pick the container size from it). Starts the media runner as the
 * container runs it (TypeScript compiled with media-runner/tsconfig.build.json, plain `node`, no tsx) with
 * RUNNER_CONCURRENCY (default 2), sends JOBS (default 12) jobs at once over the sample files (video, WebM, a
 * large PNG, audio), and samples every 50 ms the resident memory of the runner and all its children
 * (ffprobe/ffmpeg). Prints idle, peak and after-load figures.
 *
 *   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && npm run bench:runner-memory'
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../testkit/start-service.ts";

const root = join(import.meta.dirname, "..");
const concurrency = process.env.RUNNER_CONCURRENCY ?? "2";
const jobs = Number(process.env.JOBS ?? 12);
const token = "runner-memory-bench-token-0123456789";

/** Resident KiB of a process and all its descendants, from /proc. */
function treeRssKiB(pid: number): number {
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parents.set(Number(entry), Number(fields[1]));
      rss.set(Number(entry), (Number(fields[21]) * 4096) / 1024);
    } catch {
      // exited between readdir and read
    }
  }
  let total = 0;
  for (const [p] of rss) {
    for (let q: number | undefined = p, hops = 0; q && hops < 64; q = parents.get(q), hops++) {
      if (q === pid) {
        total += rss.get(p) ?? 0;
        break;
      }
    }
  }
  return total;
}

/** utime + stime of a process, in clock ticks. */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

const build = spawnSync(join(root, "media-runner", "node_modules", ".bin", "tsc"), ["-p", join(root, "media-runner", "tsconfig.build.json")], { stdio: "inherit" });
if (build.status !== 0) process.exit(1);

const samplesPort = await freePort();
const samples = spawn(process.execPath, [join(root, "scripts", "samples.mjs")], { env: { ...process.env, SAMPLES_PORT: String(samplesPort) }, stdio: "ignore" });
const port = await freePort();
const spawnedAt = performance.now();
const runner = spawn(process.execPath, [join(root, "media-runner", "dist", "media-runner", "src", "server.js")], {
  env: { ...process.env, RUNNER_TOKEN: token, RUNNER_PORT: String(port), RUNNER_CONCURRENCY: concurrency, SSRF_ALLOWLIST: `127.0.0.1:${samplesPort}` },
  stdio: ["ignore", "pipe", "inherit"],
});
const stop = () => {
  runner.kill("SIGTERM");
  samples.kill("SIGTERM");
};
try {
  const until = Date.now() + 60_000;
  const up = async (url: string) => fetch(url).then((r) => r.ok, () => false);
  // Cold start: from the spawn of plain `node` on the compiled runner to its first healthy answer (polled every
  // 10 ms), and the CPU the runner spent on the way (utime + stime, 10 ms ticks).
  while (!(await up(`http://127.0.0.1:${port}/v1/health`))) {
    if (Date.now() > until) throw new Error("runner did not start");
    await new Promise((r) => setTimeout(r, 10));
  }
  const coldMs = performance.now() - spawnedAt;
  const coldCpuMs = cpuTicks(runner.pid!) * 10;
  const coldRss = treeRssKiB(runner.pid!);
  while (!(await up(`http://127.0.0.1:${samplesPort}/video.mp4`))) {
    if (Date.now() > until) throw new Error("runner or samples did not start");
    await new Promise((r) => setTimeout(r, 200));
  }
  await new Promise((r) => setTimeout(r, 500));
  const idle = treeRssKiB(runner.pid!);
  const files = [["video.mp4", "video"], ["video.webm", "video"], ["image.png", "image"], ["audio.flac", "audio"]] as const;
  let peak = 0;
  const sampler = setInterval(() => { peak = Math.max(peak, treeRssKiB(runner.pid!)); }, 50);
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: jobs }, (_, i) => {
    const [file, category] = files[i % files.length]!;
    return fetch(`http://127.0.0.1:${port}/v1/process`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `http://127.0.0.1:${samplesPort}/${file}?job=${i}`, category, stages: ["metadata", "thumbnail", "placeholder", "palette"] }),
    }).then((r) => r.status);
  }));
  const ms = performance.now() - started;
  clearInterval(sampler);
  const after = treeRssKiB(runner.pid!);
  const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
  console.log(`runner memory, RUNNER_CONCURRENCY=${concurrency}, ${jobs} jobs at once (${answers.filter((s) => s === 200).length} answered 200 in ${ms.toFixed(0)} ms; statuses ${[...new Set(answers)].sort().map((code) => `${code}×${answers.filter((s) => s === code).length}`).join(" ")}):`);
  console.log(`  cold start to healthy ${coldMs.toFixed(0)} ms (runner CPU ${coldCpuMs} ms, ${mib(coldRss)} resident then)`);
  console.log(`  idle ${mib(idle)}   peak (runner + ffprobe/ffmpeg children) ${mib(peak)}   after ${mib(after)}`);
} finally {
  stop();
}
