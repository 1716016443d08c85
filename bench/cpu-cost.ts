/**
 * `npm run bench -- --cpu [--rounds 3] [--files mp4,jpg]`: CPU-milliseconds per inspection, by profile and file,
 * beside the CPU of the tools a user would run by hand on the same files, side by side in one run (rounds rotate
 * the order, medians), then the cost per 1,000 inspections on Cloudflare's published prices.
 *
 * Where the CPU is read (utime + stime in /proc/<pid>/stat, in clock ticks of `getconf CLK_TCK`):
 *   worker    the workerd processes below the started service (wrangler dev's local runtime; it also runs
 *             wrangler's own proxy worker, so this is an upper bound for the deployed Worker)
 *   runner    the media runner's Node process: its own utime + stime
 *   engines   that process's cutime + cstime (children it reaped: ffprobe, ffmpeg, ...) plus any engine still
 *             alive below it, so an engine that outlives one run is not lost
 *             frame decoders (long-lived node-av processes below the runner, media/engine-worker/) are engines too:
 *             their utime + stime is read before and after each run like any live engine's, and shown apart
 *             (`dec`); they are not waited for when a run settles (they stay alive between jobs)
 *   harness   everything else below the service (wrangler's Node process, tsx's wrapper): dev-only, not billed
 *   by hand   this process's own cutime + cstime around `ffprobe` or `ffprobe` + one `ffmpeg -ss` frame
 * Each service run is read after background work settled (the origin quiet, no engine alive below the runner),
 * so work a `fast` call queues for later is charged to it. The kernel counts in whole ticks (10 ms at 100/s):
 * single runs are coarse, medians over rounds less so.
 */
import { execFile, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ensureBenchMedia, benchFiles, type BenchFile } from "./support/media.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../testkit/loopback-origin.ts";
import { startService, processesBelow, type StartedService } from "../testkit/start-service.ts";
import { median } from "./support/stats.ts";
import { runnerHealthPath } from "../shared/shapes/runner.ts";
import { frameDecoderMarker } from "../media-runner/src/media/engine-worker/decoder-process.ts";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..");
const ffprobe = process.env.FFPROBE_PATH ?? "ffprobe";
const ffmpeg = process.env.FFMPEG_PATH ?? "ffmpeg";
const ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
const tickMs = 1000 / ticksPerSecond;
const perRunTimeoutMs = 120_000;
const settleQuietMs = 400;
/**
 * `fast` hands its runner work to the queue, whose consumer takes a batch up to max_batch_timeout (1 s, wrangler.toml)
 * later: its job must start inside fast's own measurement, not in the next tool's (which then seemed to start two).
 */
const settleAfterQueueMs = 2_000;
const settleMaxMs = 30_000;
const runId = Date.now().toString(36);
/** Jobs at once per runner container (wrangler.jsonc RUNNER_CONCURRENCY): memory and disk are shared by them. */
const runnerConcurrency = 2;
/** standard-1: 4 GiB of memory, 8 GB of disk. */
const containerMemoryGiB = 4;
const containerDiskGB = 8;
/** Queue operations of one runner job sent through the queue: its write, read and delete (one 64 KB unit each). */
const queueOperationsPerJob = 3;
/** A Durable Object is billed for 128 MB while active, whatever it uses. */
const durableObjectGB = 0.128;

/**
 * Cloudflare's published prices beyond the Workers Paid plan's included amounts, in US dollars, as of the time of
 * writing. One table, one source each; update the figure and the date together.
 */
export const cloudflareRates = {
  workerRequest: { usd: 0.3 / 1e6, unit: "request", source: "https://developers.cloudflare.com/workers/platform/pricing/" },
  workerCpuMs: { usd: 0.02 / 1e6, unit: "CPU-ms", source: "https://developers.cloudflare.com/workers/platform/pricing/" },
  durableObjectRequest: { usd: 0.15 / 1e6, unit: "request", source: "https://developers.cloudflare.com/durable-objects/platform/pricing/" },
  durableObjectGbS: { usd: 12.5 / 1e6, unit: "GB-s", source: "https://developers.cloudflare.com/durable-objects/platform/pricing/" },
  r2ClassA: { usd: 4.5 / 1e6, unit: "class A operation", source: "https://developers.cloudflare.com/r2/pricing/" },
  r2ClassB: { usd: 0.36 / 1e6, unit: "class B operation", source: "https://developers.cloudflare.com/r2/pricing/" },
  queueOperation: { usd: 0.4 / 1e6, unit: "operation (64 KB)", source: "https://developers.cloudflare.com/queues/platform/pricing/" },
  containerVcpuS: { usd: 0.00002, unit: "vCPU-s", source: "https://developers.cloudflare.com/containers/pricing/" },
  containerGibS: { usd: 0.0000025, unit: "GiB-s of memory", source: "https://developers.cloudflare.com/containers/pricing/" },
  containerDiskGbS: { usd: 0.00000007, unit: "GB-s of disk", source: "https://developers.cloudflare.com/containers/pricing/" },
} as const;

interface Cpu { utime: number; stime: number; cutime: number; cstime: number }

function readCpu(pid: number | "self"): Cpu | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start after the last ")": state is field 3.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { utime: Number(f[11]), stime: Number(f[12]), cutime: Number(f[13]), cstime: Number(f[14]) };
  } catch {
    return undefined; // Gone meanwhile.
  }
}

const own = (c: Cpu | undefined) => (c ? c.utime + c.stime : 0);
const reaped = (c: Cpu | undefined) => (c ? c.cutime + c.cstime : 0);

/** CPU ticks so far of each part of the service. */
interface Parts { worker: number; runner: number; engines: number; decoders: number; harness: number; enginesAlive: number }

/** The frame decoders' marker argument (media-runner/src/media/engine-worker/decoder-process.ts). */
const isDecoder = (cmd: string) => cmd.includes(frameDecoderMarker);
/**
 * Children of the runner that live as long as it does, so a run never waits for them to exit: the frame decoders,
 * and tsx's esbuild service (the runner runs from its TypeScript sources here). Their CPU is still counted.
 */
const isLongLived = (cmd: string) => isDecoder(cmd) || /esbuild\S* --service/.test(cmd);

function serviceParts(service: StartedService, runnerEntry: string): Parts {
  const below = processesBelow(service.child.pid!);
  const isRunner = (cmd: string) => cmd.includes(runnerEntry);
  // tsx starts the runner as a child Node process: the runner is the innermost process naming the entry.
  const runners = below.filter((p) => isRunner(p.cmd) && !processesBelow(p.pid).some((c) => isRunner(c.cmd)));
  const runnerPids = new Set(runners.map((p) => p.pid));
  const engineProcs = runners.flatMap((r) => processesBelow(r.pid));
  const enginePids = new Set(engineProcs.map((p) => p.pid));
  const parts: Parts = { worker: 0, runner: 0, engines: 0, decoders: 0, harness: 0, enginesAlive: engineProcs.filter((p) => !isLongLived(p.cmd)).length };
  for (const r of runners) {
    const c = readCpu(r.pid);
    parts.runner += own(c);
    parts.engines += reaped(c);
  }
  for (const e of engineProcs) {
    const c = readCpu(e.pid);
    // Reaped grandchildren sit in a live engine's cutime; once the engine is reaped they move to the runner's.
    parts.engines += own(c) + reaped(c);
    if (isDecoder(e.cmd)) parts.decoders += own(c) + reaped(c);
  }
  for (const p of [{ pid: service.child.pid!, cmd: "node scripts/start.mjs" }, ...below]) {
    if (runnerPids.has(p.pid) || enginePids.has(p.pid)) continue;
    const c = readCpu(p.pid);
    if (/workerd\S* serve/.test(p.cmd)) parts.worker += own(c) + reaped(c);
    else parts.harness += own(c);
  }
  return parts;
}

interface Job { ms: number; engines: number; requestId?: string }

function runnerJobs(service: StartedService): Job[] {
  return service.jsonLines().flatMap((l) => (l.msg === "job" && l.job
    ? [{ ms: Number(l.job.ms) || 0, engines: Number(l.job.engines) || 0, ...(typeof l.requestId === "string" ? { requestId: l.requestId } : {}) }]
    : []));
}

/** The runner's own count of jobs running and waiting (GET /v1/health), undefined when it does not answer. */
async function runnerBusy(service: StartedService): Promise<boolean | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${service.runnerPort}${runnerHealthPath}`, { signal: AbortSignal.timeout(2_000) });
    const health = (await res.json()) as { active?: number; queued?: number };
    return (health.active ?? 0) + (health.queued ?? 0) > 0;
  } catch {
    return undefined;
  }
}

type ToolName = "fast" | "standard" | "full" | "ffprobe" | "ffprobe+ffmpeg";

interface Sample {
  ms: number;
  worker: number;
  runner: number;
  engines: number;
  /** Of `engines`: the frame decoder processes' CPU. */
  decoders: number;
  harness: number;
  hand: number;
  originRequests: number;
  runnerJobs: number;
  runnerJobMs: number;
  /** Engine processes (ffprobe, ffmpeg, ...) the run's runner jobs started, from their log lines. */
  engineProcesses: number;
}

async function inspect(service: StartedService, url: string, profile: string, requestId: string): Promise<void> {
  const res = await fetch(`${service.base}/api/v1/inspect?profile=${profile}`, {
    method: "POST",
    // The runner's job lines carry it: each job is counted for the inspection that started it, whenever it ran.
    headers: { "content-type": "application/json", "x-request-id": requestId },
    body: JSON.stringify({ url }),
    signal: AbortSignal.timeout(perRunTimeoutMs),
  });
  const body = (await res.json()) as { processing?: { status: string } };
  // fast and standard may answer 202 with enrichments pending: their background work is measured by settling.
  if (res.status !== 200 && !(res.status === 202 && profile !== "full")) throw new Error(`inspect ${profile} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  if (profile === "full" && body.processing?.status !== "complete") throw new Error(`full not complete: ${JSON.stringify(body.processing)}`);
}

async function ffprobeJson(url: string): Promise<{ format?: { duration?: string } }> {
  const { stdout } = await run(ffprobe, ["-v", "error", "-show_format", "-show_streams", "-of", "json", url], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout);
}

async function byHand(tool: ToolName, url: string, file: BenchFile, scratch: string): Promise<void> {
  const probed = await ffprobeJson(url);
  if (tool === "ffprobe") return;
  const duration = Number(probed.format?.duration ?? 0);
  const seek = file.kind === "video" && Number.isFinite(duration) ? ["-ss", (duration * 0.1).toFixed(3)] : [];
  await run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", ...seek, "-i", url, "-frames:v", "1",
    "-vf", "scale=320:320:force_original_aspect_ratio=decrease", join(scratch, "frame.jpg")]);
}

async function settle(origin: LoopbackOrigin, service: StartedService, runnerEntry: string, quietMs = settleQuietMs): Promise<void> {
  const until = Date.now() + settleMaxMs;
  while (Date.now() < until) {
    const quiet = origin.stats.inFlight === 0 && Date.now() - origin.stats.lastActivity >= quietMs;
    if (quiet && serviceParts(service, runnerEntry).enginesAlive === 0 && (await runnerBusy(service)) !== true) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function measure(tool: ToolName, file: BenchFile, tag: string, ctx: Ctx): Promise<Sample | string> {
  const url = `${ctx.origin.url}/files/${file.name}?t=${tag}`;
  const before = serviceParts(ctx.service, ctx.runnerEntry);
  const handBefore = reaped(readCpu("self"));
  const jobsBefore = runnerJobs(ctx.service).length;
  const started = performance.now();
  try {
    if (tool === "ffprobe" || tool === "ffprobe+ffmpeg") await byHand(tool, url, file, ctx.scratch);
    else await inspect(ctx.service, url, tool, tag);
  } catch (error) {
    await settle(ctx.origin, ctx.service, ctx.runnerEntry);
    return error instanceof Error ? error.message.split("\n")[0]!.slice(0, 200) : String(error);
  }
  const ms = performance.now() - started;
  const handAfter = reaped(readCpu("self"));
  if (tool !== "ffprobe" && tool !== "ffprobe+ffmpeg") await settle(ctx.origin, ctx.service, ctx.runnerEntry, tool === "fast" ? settleAfterQueueMs : settleQuietMs);
  const after = serviceParts(ctx.service, ctx.runnerEntry);
  // Jobs by the inspection's request id; jobs another run started are not this run's (their CPU, if they ran
  // meanwhile, is: settling keeps that rare).
  const jobs = runnerJobs(ctx.service).slice(jobsBefore).filter((j) => j.requestId === tag);
  return {
    ms,
    worker: (after.worker - before.worker) * tickMs,
    runner: (after.runner - before.runner) * tickMs,
    engines: (after.engines - before.engines) * tickMs,
    decoders: (after.decoders - before.decoders) * tickMs,
    harness: (after.harness - before.harness) * tickMs,
    hand: (handAfter - handBefore) * tickMs,
    originRequests: ctx.origin.tagStats(tag).requests,
    runnerJobs: jobs.length,
    runnerJobMs: jobs.reduce((s, j) => s + j.ms, 0),
    engineProcesses: jobs.reduce((s, j) => s + j.engines, 0),
  };
}

interface Ctx { service: StartedService; origin: LoopbackOrigin; scratch: string; runnerEntry: string }

interface Row { file: BenchFile; tool: ToolName; samples: Sample[]; errors: string[] }

const med = (row: Row | undefined, key: keyof Sample) => (row && row.samples.length ? median(row.samples.map((s) => s[key])) : NaN);
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");

function toolsFor(file: BenchFile): ToolName[] {
  return ["fast", "standard", "full", "ffprobe", ...(file.kind === "audio" ? [] : ["ffprobe+ffmpeg" as const])];
}

/** Dollars per 1,000 inspections of one profile on one file, and the terms it is made of. */
function costPerThousand(row: Row): { total: number; terms: Record<string, number> } {
  const r = cloudflareRates;
  const wallS = med(row, "ms") / 1000;
  const jobs = med(row, "runnerJobs");
  const containerCpuS = (med(row, "runner") + med(row, "engines")) / 1000;
  const containerBusyS = med(row, "runnerJobMs") / 1000 / runnerConcurrency;
  const thumbnails = row.tool === "full" && row.file.kind !== "audio" ? 1 : 0;
  const terms: Record<string, number> = {
    "Workers requests": r.workerRequest.usd * 1,
    "Workers CPU": r.workerCpuMs.usd * med(row, "worker"),
    "DO requests": r.durableObjectRequest.usd * (1 + jobs),
    "DO duration": r.durableObjectGbS.usd * durableObjectGB * wallS,
    "R2 writes": r.r2ClassA.usd * thumbnails,
    // `fast` hands its runner work to the queue (write, read, delete per message); waiting profiles call directly.
    "Queues": row.tool === "fast" ? r.queueOperation.usd * queueOperationsPerJob * jobs : 0,
    "Container CPU": r.containerVcpuS.usd * containerCpuS,
    "Container memory+disk": (r.containerGibS.usd * containerMemoryGiB + r.containerDiskGbS.usd * containerDiskGB) * containerBusyS,
  };
  const total = Object.values(terms).reduce((a, b) => a + b, 0);
  return { total: total * 1000, terms: Object.fromEntries(Object.entries(terms).map(([k, v]) => [k, v * 1000])) };
}

export async function cpuCost(options: { rounds: number; files?: string }): Promise<void> {
  const filter = options.files?.split(",").map((s) => s.trim()).filter(Boolean);
  const files = benchFiles.filter((f) => !filter || filter.some((p) => f.name.includes(p)));
  if (files.length === 0) throw new Error(`no bench file matches ${options.files}`);
  const dir = await ensureBenchMedia(join(root, ".tmp", "bench-media"), files, (l) => console.log(l));
  const origin = await startLoopbackOrigin([dir], "127.0.0.1", {}, { validators: false });
  const scratch = await mkdtemp(join(tmpdir(), "bench-cpu-"));
  console.log(`starting the service (node scripts/start.mjs); CPU from /proc/<pid>/stat, ${ticksPerSecond} ticks/s (getconf CLK_TCK)...`);
  const service = await startService({
    env: { SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, FULL_WAIT_TIMEOUT_MS: "120000", INSPECT_RATE_LIMIT: "0", RUNNER_DISPATCH: "direct" },
    settlePosts: 5,
  });
  const ctx: Ctx = { service, origin, scratch, runnerEntry: join(root, "media-runner", "src", "server.ts") };
  const rows: Row[] = [];
  try {
    // Warm-up, not counted: JIT, wasm, page cache, first engine start-up.
    for (const file of [files[0]!, ...files.filter((f) => f.kind !== files[0]!.kind).slice(0, 2)]) {
      for (const tool of toolsFor(file)) {
        const r = await measure(tool, file, `cpuwarm-${tool.replace(/\W/g, "")}-${file.name.replace(/\W/g, "")}-${runId}`, ctx);
        if (typeof r === "string") console.log(`  warm-up ${tool} on ${file.name}: ${r}`);
      }
    }
    for (const file of files) {
      const tools = toolsFor(file);
      const fileRows: Row[] = tools.map((tool) => ({ file, tool, samples: [], errors: [] }));
      for (let round = 0; round < options.rounds; round++) {
        for (let i = 0; i < tools.length; i++) {
          const k = (i + round) % tools.length;
          const tag = `cpu-${tools[k]!.replace(/\W/g, "")}-${file.name.replace(/\W/g, "")}-${round}-${runId}`;
          const s = await measure(tools[k]!, file, tag, ctx);
          if (typeof s === "string") fileRows[k]!.errors.push(s);
          else fileRows[k]!.samples.push(s);
        }
      }
      rows.push(...fileRows);
      printFile(fileRows);
    }
  } finally {
    await service.stop();
    await origin.close();
    await rm(scratch, { recursive: true, force: true });
  }
  printSummary(rows, files, options.rounds);
}

function printFile(rows: Row[]): void {
  const file = rows[0]!.file;
  console.log(`\n${file.name} — ${file.label}: CPU ms per run (medians)`);
  console.log(`  ${"tool".padEnd(15)} ${"wall".padStart(6)} ${"worker".padStart(7)} ${"runner".padStart(7)} ${"engines".padStart(8)} ${"dec".padStart(5)} ${"r+e".padStart(6)} ${"hand".padStart(6)} ${"harness".padStart(8)}  jobs  engine procs  origin req`);
  for (const r of rows) {
    if (!r.samples.length) {
      console.log(`  ${r.tool.padEnd(15)} FAILED: ${r.errors[0]}`);
      continue;
    }
    const hand = r.tool.startsWith("ffprobe");
    const re = med(r, "runner") + med(r, "engines");
    console.log(`  ${r.tool.padEnd(15)} ${fmt(med(r, "ms")).padStart(6)} ${(hand ? "" : fmt(med(r, "worker"))).padStart(7)} ${(hand ? "" : fmt(med(r, "runner"))).padStart(7)} ` +
      `${(hand ? "" : fmt(med(r, "engines"))).padStart(8)} ${(hand ? "" : fmt(med(r, "decoders"))).padStart(5)} ${(hand ? "" : fmt(re)).padStart(6)} ${(hand ? fmt(med(r, "hand")) : "").padStart(6)} ` +
      `${(hand ? "" : fmt(med(r, "harness"))).padStart(8)}  ${(hand ? "" : fmt(med(r, "runnerJobs"))).padStart(4)}  ${(hand ? "" : fmt(med(r, "engineProcesses"))).padStart(12)}  ${fmt(med(r, "originRequests")).padStart(10)}` +
      `${r.errors.length ? `  (${r.errors.length} failed: ${r.errors[0]})` : ""}`);
  }
}

function printSummary(rows: Row[], files: BenchFile[], rounds: number): void {
  const row = (f: BenchFile, t: ToolName) => rows.find((r) => r.file === f && r.tool === t && r.samples.length > 0);
  console.log(`\nfull: runner + engines CPU vs the hand tools' CPU, per file (medians of ${rounds} rounds; target ≤ 0.5x)`);
  console.log(`  ${"file".padEnd(26)} ${"worker".padStart(7)} ${"runner".padStart(7)} ${"engines".padStart(8)} ${"r+e".padStart(6)} ${"hand".padStart(6)}  hand tool        ratio`);
  for (const f of files) {
    const full = row(f, "full");
    const hand = row(f, f.kind === "audio" ? "ffprobe" : "ffprobe+ffmpeg");
    const re = med(full, "runner") + med(full, "engines");
    const h = med(hand, "hand");
    const ratio = Number.isFinite(re) && h > 0 ? re / h : NaN;
    console.log(`  ${f.name.padEnd(26)} ${fmt(med(full, "worker")).padStart(7)} ${fmt(med(full, "runner")).padStart(7)} ${fmt(med(full, "engines")).padStart(8)} ` +
      `${fmt(re).padStart(6)} ${fmt(h).padStart(6)}  ${(hand?.tool ?? "-").padEnd(15)}  ${Number.isFinite(ratio) ? `${ratio.toFixed(2)}x ${ratio <= 0.5 ? "MET" : "missed"}` : "n/a"}`);
  }

  console.log(`\nCloudflare rates (USD, beyond the Workers Paid plan's included amounts):`);
  for (const [name, r] of Object.entries(cloudflareRates)) {
    console.log(`  ${name.padEnd(21)} ${`$${+(r.usd * 1e6).toFixed(4)}`.padStart(8)} per million ${r.unit.padEnd(18)} ${r.source}`);
  }
  console.log(`\ncost per 1,000 inspections (USD; fast on every file, standard on images, full on video):`);
  const picks: Row[] = [];
  for (const f of files) {
    const fast = row(f, "fast");
    if (fast) picks.push(fast);
    const other = f.kind === "image" ? row(f, "standard") : f.kind === "video" ? row(f, "full") : undefined;
    if (other) picks.push(other);
  }
  const termNames = picks.length ? Object.keys(costPerThousand(picks[0]!).terms) : [];
  console.log(`  ${"file".padEnd(26)} ${"profile".padEnd(9)} ${"total".padStart(8)}  ${termNames.map((t) => t.padStart(Math.max(9, t.length))).join(" ")}`);
  for (const p of picks) {
    const c = costPerThousand(p);
    console.log(`  ${p.file.name.padEnd(26)} ${p.tool.padEnd(9)} ${`$${c.total.toFixed(4)}`.padStart(8)}  ${termNames.map((t) => `$${c.terms[t]!.toFixed(4)}`.padStart(Math.max(9, t.length))).join(" ")}`);
  }
  console.log(`
assumptions: Worker CPU is workerd's under wrangler dev (includes its local proxy worker: an upper bound); one Worker
request per inspection; Durable Object requests 1 per inspection + 1 per runner job counted in the run (the container's
DO), DO duration = the inspection's wall time at 128 MB; container CPU = runner + engines CPU measured (CPU billed by
use), memory (standard-1, 4 GiB) and disk (8 GB) for the runner jobs' logged time ÷ ${runnerConcurrency} jobs at once on a busy
container (idle time before it sleeps not included); R2: one class A write per full image/video (the thumbnail; a
storyboard adds 2, a waveform 1; standard's previews not counted), no reads (a later GET of a preview is class B); Queues: 3 operations
per runner job \`fast\` queues (write, read, delete), none for standard and full (direct dispatch); the plan's $5/month and its included amounts not subtracted; egress free.`);
}
