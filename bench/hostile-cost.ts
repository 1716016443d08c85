/**
 * What hostile inputs cost the media runner, per inspection: runner jobs, engine-seconds (wall time of engine
 * processes, summed), engine CPU-seconds and peak engine memory, for the third review's scenarios:
 *   flac-10h-8ch       0.9 MB FLAC declaring (and holding) ten hours of 8-channel silence, expand=waveform
 *   heic-lying-ispe    an 8000x8000 HEVC picture (64 Mpx) whose ispe says 64x64 (the default wall is 50 Mpx)
 *   heic-grid-lying    a grid of 256 512x512 HEVC tiles (67 Mpx) whose ispe boxes say 64x64 tiles and a 512x512 grid
 *   heic-grid-8736     an honest 8736x5856 grid of 216 tiles (51 Mpx, a phone's layout) with a 320x214 thumbnail item
 *   storyboard-8k-100  100 all-keyframe 7680x4320 H.264 frames (36 MB), expand=storyboard
 * Each inspection is run as the Worker runs it: a job, then the Worker's own retry policy (decideRetry of the
 * tree under test, default config: 5 attempts) deciding whether another job follows, each retry with the budget
 * the Worker would send (what the earlier jobs left). Retry delays are not waited. Engines are watched in /proc
 * (direct children of this process: the launcher thread spawns them, prlimit execs in place) every 20 ms.
 *
 * `BENCH_TREE` names the checkout whose runner and retry policy run (default: this one), so the same script
 * measures before and after:
 *   git archive <base> | tar -x -C /tmp/base; ln -s $PWD/node_modules /tmp/base/; ln -s $PWD/media-runner/node_modules /tmp/base/media-runner/
 *   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && BENCH_TREE=/tmp/base npm run bench:hostile'
 *   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && npm run bench:hostile'
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { gridHeic, keyframeVideo, lyingIspe, makeHeic, silentFlac, writeOnce } from "../testkit/hostile-inputs.ts";
import { startLoopbackOrigin } from "../testkit/loopback-origin.ts";

const tree = resolve(process.env.BENCH_TREE ?? join(import.meta.dirname, ".."));
const only = process.argv[2];
const dir = join(tmpdir(), "hostile-bench");
mkdirSync(dir, { recursive: true });

// ---- fixtures ----
writeOnce(join(dir, "ten-hours-8ch.flac"), () => silentFlac({ hours: 10, channels: 8, sampleRate: 48000 }));
const tile = makeHeic(join(dir, "tile-512.heic"), 512, 512);
const thumb = makeHeic(join(dir, "thumb-320x214.heic"), 320, 214);
writeOnce(join(dir, "grid-8736x5856.heic"), () => gridHeic({
  tile, tileWidth: 512, tileHeight: 512, columns: 18, rows: 12, width: 8736, height: 5856, thumb: { file: thumb, width: 320, height: 214 },
}));
if (!only || only === "heic-lying-ispe") {
  const big = makeHeic(join(dir, "plain-8000.heic"), 8000, 8000);
  writeOnce(join(dir, "lying-ispe-8000.heic"), () => lyingIspe(readFileSync(big), { width: 8000, height: 8000 }, { width: 64, height: 64 }));
}
writeOnce(join(dir, "grid-lying.heic"), () => gridHeic({ tile, tileWidth: 64, tileHeight: 64, columns: 16, rows: 16, width: 512, height: 512 }));
if ((!only || only.startsWith("storyboard")) && !existsSync(join(dir, "keyframes-8k-100.mp4"))) keyframeVideo(join(dir, "keyframes-8k-100.mp4"), 7680, 4320, 100, 51);

const scenarios = [
  { name: "flac-10h-8ch", file: "ten-hours-8ch.flac", category: "audio", stages: ["metadata", "waveform"] },
  { name: "heic-lying-ispe", file: "lying-ispe-8000.heic", category: "image", stages: ["metadata", "thumbnail", "placeholder", "palette"] },
  { name: "heic-grid-lying", file: "grid-lying.heic", category: "image", stages: ["metadata", "thumbnail", "placeholder", "palette"] },
  { name: "heic-grid-8736", file: "grid-8736x5856.heic", category: "image", stages: ["metadata", "thumbnail", "placeholder", "palette"] },
  { name: "storyboard-8k-100", file: "keyframes-8k-100.mp4", category: "video", stages: ["storyboard"] },
] as const;

// ---- the tree under test ----
const { buildApp } = await import(pathToFileURL(join(tree, "media-runner/src/app.ts")).href);
const { loadConfig } = await import(pathToFileURL(join(tree, "media-runner/src/config.ts")).href);
const { findBinaries } = await import(pathToFileURL(join(tree, "media-runner/src/media/binaries.ts")).href);
type Decide = (err: unknown, attempts: number, config: unknown) => { kind: "fail" | "retry" };
type MakeError = new (code: string, message: string, permanent: boolean, usage?: unknown) => Error;
let decideRetry: Decide;
let RunnerError: MakeError;
if (existsSync(join(tree, "worker/runner/runner-error.ts"))) {
  ({ decideRetry } = await import(pathToFileURL(join(tree, "worker/dispatch/retry-policy.ts")).href));
  ({ RunnerError } = await import(pathToFileURL(join(tree, "worker/runner/runner-error.ts")).href));
} else {
  // Trees before runner-error.ts import the Cloudflare runtime with it: their policy, as it was written there.
  RunnerError = class extends Error {
    constructor(readonly code: string, message: string, readonly permanent: boolean) {
      super(message);
    }
  };
  decideRetry = (err, attempts, config) => {
    const e = err as { code: string; permanent: boolean };
    const max = (config as { RUNNER_MAX_ATTEMPTS: number }).RUNNER_MAX_ATTEMPTS;
    return e.permanent || e.code === "UPSTREAM_TIMEOUT" || attempts >= max ? { kind: "fail" } : { kind: "retry" };
  };
}
const limits = await import(pathToFileURL(join(tree, "shared/limits.ts")).href);
const engineBudgetMs: number | undefined = limits.inspectionEngineSecondsBudget ? limits.inspectionEngineSecondsBudget * 1000 : undefined;
const permanent = new Set(["INVALID_PAYLOAD", "SSRF_BLOCKED", "RESOURCE_NOT_FOUND", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA", "CORRUPT_MEDIA", "IMAGE_TOO_LARGE"]);
const workerConfig = { RUNNER_MAX_ATTEMPTS: 5, RUNNER_RETRY_BASE_SECONDS: 2 };

// ---- engine watcher ----
const ticks = 100; // USER_HZ
interface Engine { first: number; last: number; cpu: number; hwmKiB: number; command: string }
const engines = new Map<number, Engine>();
function pollEngines(): void {
  const now = performance.now();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) !== process.pid) continue;
      const command = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      // Engines only (tsx keeps an esbuild child too).
      if (!/^(ffmpeg|ffprobe|heif-convert|prlimit)$/.test(command)) continue;
      const cpu = (Number(fields[11]) + Number(fields[12])) / ticks;
      const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${name}/status`, "utf8"));
      const pid = Number(name);
      const seen = engines.get(pid) ?? { first: now, last: now, cpu: 0, hwmKiB: 0, command };
      seen.last = now;
      seen.cpu = Math.max(seen.cpu, cpu);
      seen.hwmKiB = Math.max(seen.hwmKiB, Number(hwm?.[1] ?? 0));
      seen.command = command;
      engines.set(pid, seen);
    } catch {
      // exited meanwhile
    }
  }
}

const origin = await startLoopbackOrigin([dir]);
const config = loadConfig({ RUNNER_TOKEN: "bench-token-0123456789abcdef", PATH: process.env.PATH, SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, RUNNER_LOG_LEVEL: "silent" });
const app = await buildApp({ config, binaries: findBinaries({ pathVariable: process.env.PATH ?? "" }), logger: false });
const timer = setInterval(pollEngines, 20);

console.log(`tree: ${tree}`);
console.log("| scenario | runner jobs | outcome of each job | wall s (all jobs) | engine-s (watched) | engine CPU-s | engines | peak engine RSS MiB | engineMs reported |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const s of scenarios) {
  if (only && s.name !== only) continue;
  engines.clear();
  const outcomes: string[] = [];
  let reported = 0;
  let spentMs = 0;
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    const budget = engineBudgetMs !== undefined ? { budget: { requests: 128, bytes: 100 * 1024 * 1024, engineMs: Math.max(0, engineBudgetMs - spentMs) } } : {};
    if (engineBudgetMs !== undefined && budget.budget!.engineMs === 0) {
      outcomes.push("not sent: engine budget spent");
      break;
    }
    const res = await app.inject({
      method: "POST", url: "/v1/process", headers: { authorization: "Bearer bench-token-0123456789abcdef" },
      payload: { url: `${origin.url}/files/${s.file}`, category: s.category, stages: s.stages, client: "bench", ...budget },
    });
    const body = res.json();
    if (res.statusCode === 200) {
      const failed = Object.entries(body.stages ?? {}).filter(([, o]) => (o as { status: string }).status === "failed")
        .map(([stage, o]) => `${stage} ${(o as { reason?: string }).reason?.split(":")[0]}`);
      const tiles = body.storyboard ? ` (${body.storyboard.tiles} tiles)` : body.thumbnail ? ` (thumbnail ${body.thumbnail.width}x${body.thumbnail.height})` : "";
      outcomes.push(`200${tiles}${failed.length ? `, failed: ${failed.join(", ")}` : ""}`);
      reported += body.engineMs ?? 0;
      break;
    }
    const code = body.error?.code ?? `HTTP_${res.statusCode}`;
    outcomes.push(`${res.statusCode} ${code}`);
    spentMs += body.error?.usage?.engineMs ?? 0;
    reported += body.error?.usage?.engineMs ?? 0;
    const decision = decideRetry(new RunnerError(code, body.error?.message ?? "", permanent.has(code), body.error?.usage), attempt, workerConfig);
    if (decision.kind === "fail") break;
  }
  pollEngines();
  const list = [...engines.values()];
  const jobs = outcomes.filter((o) => !o.startsWith("not sent")).length;
  const engineS = list.reduce((sum, e) => sum + (e.last - e.first), 0) / 1000;
  const cpuS = list.reduce((sum, e) => sum + e.cpu, 0);
  const peak = Math.max(0, ...list.map((e) => e.hwmKiB)) / 1024;
  console.log(`| ${s.name} | ${jobs} | ${outcomes.join("; ")} | ${((performance.now() - started) / 1000).toFixed(1)} | ${engineS.toFixed(1)} | ${cpuS.toFixed(1)} | ${list.length} | ${peak.toFixed(0)} | ${engineBudgetMs !== undefined ? (reported / 1000).toFixed(1) + " s" : "n/a"} |`);
}
clearInterval(timer);
await app.close();
await origin.close();
