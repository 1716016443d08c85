/**
 * `npm run bench`: the service against what a user would run by hand, side by side in one run, on the same
 * generated files, through one loopback origin with Range support that counts requests and bytes per run.
 *
 *   service fast / full     POST /api/v1/inspect?profile=... on the real `node scripts/start.mjs`
 *   ffprobe                 ffprobe -show_format -show_streams over HTTP
 *   ffprobe+ffmpeg          ffprobe, then one frame with `ffmpeg -ss` at 10 % scaled to 320 px (video, images)
 *   music-metadata          parseFromTokenizer over a Range-request tokenizer (audio, video)
 *   probe-image-size        its URL form (images)
 * then a cached inspection against GET /health of the same Worker.
 *
 *   npm run bench -- [--rounds 3] [--files mp4,flac] [--tools fast,full] [--cached 200] [--dispatch direct|queue]
 *                    [--verbose] [--json out.json] [--rtt [0,20,80]] [--slow-start] [--cpu]
 * --cpu: CPU-ms per inspection (Worker, runner, engines) beside the hand tools' CPU, and the cost per 1,000
 * inspections on Cloudflare's prices (bench/cpu-cost.ts); takes --rounds and --files.
 * --rtt: the origin is reached through a latency proxy (support/latency-proxy.ts) adding half the given
 * round-trip time each way per chunk and one round trip per new connection; every file and tool is run at
 * each RTT of the list (default 0,20,80), and the table adds origin requests, sequential round trips,
 * connections (edge / runner / by hand) and the file's limit in round trips. Only the service and the tools
 * a user would run by hand (ffprobe, ffmpeg) unless --tools says otherwise; no cached series.
 * --slow-start: with --rtt, the proxy also models TCP slow start on answers (10-segment initial window, doubling
 * each round trip), so a larger read costs the round trips it would on a real network.
 * Loopback only; run it inside a loopback-only namespace:
 *   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && npm run bench'
 * Every run uses a fresh URL (a distinct `t` query parameter), so nothing is served from the service's cache
 * except in the cached series. Medians over the rounds; rounds alternate the tools so drift hits all alike.
 */
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify, parseArgs } from "node:util";
import { parseFromTokenizer } from "music-metadata";
import probeImageSize from "probe-image-size";
import { ensureBenchMedia, benchFiles, fileSize, type BenchFile } from "./support/media.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../testkit/loopback-origin.ts";
import { startLatencyProxy, type LatencyProxy } from "./support/latency-proxy.ts";
import { rttArgs, rttReport, type RttSample } from "./support/rtt-report.ts";
import { RangeTokenizer } from "./support/range-tokenizer.ts";
import { startService, type StartedService as Service } from "../testkit/start-service.ts";
import { kib, median } from "./support/stats.ts";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..");
const { values: args } = parseArgs({
  args: rttArgs(process.argv.slice(2)),
  options: {
    rtt: { type: "string" },
    rounds: { type: "string", default: "3" },
    files: { type: "string" },
    tools: { type: "string" },
    cached: { type: "string", default: "200" },
    json: { type: "string", default: join(root, ".tmp", "bench", "results.json") },
    verbose: { type: "boolean", default: false },
    /** How the service starts runner work when a caller waits: direct (default) or queue, to compare the two. */
    dispatch: { type: "string", default: "direct" },
    "slow-start": { type: "boolean", default: false },
    /** CPU-ms per inspection and the cost per 1,000 (cpu-cost.ts) instead of the timing bench. */
    cpu: { type: "boolean", default: false },
  },
});
const rounds = Math.max(1, Math.min(20, Number(args.rounds)));
const cachedRequests = Math.max(0, Math.min(2000, Number(args.cached)));
/** Background work (runner jobs a `fast` call queued) must end before the next run is timed. */
const settleQuietMs = 400;
const settleMaxMs = 30_000;
const perRunTimeoutMs = 120_000;
/** Largest round-trip time --rtt accepts: every run stays bounded. */
const maxRttMs = 1_000;
const runId = Date.now().toString(36);

interface Tool {
  name: string;
  applies(file: BenchFile): boolean;
  run(url: string, file: BenchFile, ctx: RunCtx): Promise<Record<string, unknown> | void>;
}

interface RunCtx {
  service: Service;
  scratch: string;
  /** The latency proxy in front of the origin (--rtt), whose counters each run resets. */
  proxy?: LatencyProxy;
}

interface Sample {
  ms: number;
  /** Bytes and requests at the origin when the answer arrived. */
  bytes: number;
  requests: number;
  /** The same after background work settled. */
  bytesSettled: number;
  requestsSettled: number;
  firstRange: string | undefined;
  log: string[];
  extra?: Record<string, unknown>;
  /** With --rtt: what crossed the latency proxy up to the answer. */
  rtt?: RttSample;
}

const ffprobe = process.env.FFPROBE_PATH ?? "ffprobe";
const ffmpeg = process.env.FFMPEG_PATH ?? "ffmpeg";

async function ffprobeJson(url: string): Promise<{ format?: { duration?: string } }> {
  const { stdout } = await run(ffprobe, ["-v", "error", "-show_format", "-show_streams", "-of", "json", url], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout);
}

async function inspect(service: Service, url: string, profile: string) {
  const res = await fetch(`${service.base}/api/v1/inspect?profile=${profile}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url }),
    signal: AbortSignal.timeout(perRunTimeoutMs),
  });
  const body = (await res.json()) as {
    processing?: { status: string; pendingStages: string[]; failedStages?: string[] };
    data?: { diagnostics?: Record<string, unknown> };
    error?: unknown;
  };
  if (res.status !== 200) throw new Error(`inspect ${profile} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  if (profile === "full" && body.processing?.status !== "complete") {
    throw new Error(`full not complete: ${JSON.stringify(body.processing)}`);
  }
  const failed = body.processing?.failedStages ?? [];
  return { ...(failed.length ? { failedStages: failed.join(",") } : {}), ...(body.data?.diagnostics ? { diagnostics: body.data.diagnostics } : {}) };
}

const tools: Tool[] = [
  { name: "service fast", applies: () => true, run: (url, _f, { service }) => inspect(service, url, "fast") },
  { name: "service full", applies: () => true, run: (url, _f, { service }) => inspect(service, url, "full") },
  { name: "ffprobe", applies: () => true, run: async (url) => void (await ffprobeJson(url)) },
  {
    name: "ffprobe+ffmpeg",
    applies: (f) => f.kind !== "audio",
    run: async (url, file, { scratch }) => {
      const probed = await ffprobeJson(url);
      const duration = Number(probed.format?.duration ?? 0);
      const seek = file.kind === "video" && Number.isFinite(duration) ? ["-ss", (duration * 0.1).toFixed(3)] : [];
      await run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", ...seek, "-i", url, "-frames:v", "1",
        "-vf", "scale=320:320:force_original_aspect_ratio=decrease", join(scratch, "frame.jpg")]);
    },
  },
  {
    name: "music-metadata",
    applies: (f) => f.kind !== "image",
    run: async (url) => {
      const tokenizer = await RangeTokenizer.open(url);
      const meta = await parseFromTokenizer(tokenizer);
      return { duration: meta.format.duration, codec: meta.format.codec };
    },
  },
  {
    name: "probe-image-size",
    applies: (f) => f.kind === "image",
    run: async (url) => {
      const r = await probeImageSize(url);
      return { width: r.width, height: r.height };
    },
  },
];

async function settle(origin: LoopbackOrigin): Promise<void> {
  const until = Date.now() + settleMaxMs;
  while (Date.now() < until) {
    if (origin.stats.inFlight === 0 && Date.now() - origin.stats.lastActivity >= settleQuietMs) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function measure(tool: Tool, file: BenchFile, tag: string, origin: LoopbackOrigin, ctx: RunCtx): Promise<Sample | string> {
  const url = `${ctx.proxy?.url ?? origin.url}/files/${file.name}?t=${tag}`;
  ctx.proxy?.reset();
  const started = performance.now();
  let extra: Record<string, unknown> | void;
  try {
    extra = await tool.run(url, file, ctx);
  } catch (error) {
    await settle(origin);
    return error instanceof Error ? error.message.split("\n")[0]!.slice(0, 200) : String(error);
  }
  const ms = performance.now() - started;
  const crossed = ctx.proxy?.stats();
  const atAnswer = origin.tagStats(tag);
  await settle(origin);
  const settled = origin.tagStats(tag);
  return {
    ms, bytes: atAnswer.bytes, requests: atAnswer.requests, bytesSettled: settled.bytes, requestsSettled: settled.requests,
    firstRange: atAnswer.firstRange, log: settled.log, ...(extra ? { extra } : {}),
    ...(crossed ? { rtt: { rttMs: ctx.proxy!.rttMs, requests: atAnswer.requests, bytes: atAnswer.bytes, ...crossed } } : {}),
  };
}

interface Row {
  file: string;
  size: number;
  tool: string;
  samples: Sample[];
  errors: string[];
  medianMs: number;
  medianBytes: number;
  medianRequests: number;
  medianBytesSettled: number;
  /** With --rtt: the round-trip time this row was measured at. */
  rttMs?: number;
}

/**
 * A cached inspection against GET /health of the same Worker, in both forms: GET /api/v1/inspect?url= (the same
 * method as /health, so the difference is the inspection's own cost) and POST with a JSON body. A third series is a
 * POST floor: the same POST with an ftp: URL, answered 400 INVALID_URL right after the body is read and validated.
 * It goes through everything a cached POST does except the inspection, so `floor / health` is what any POST with a
 * body costs over a GET under `wrangler dev` (its proxy worker forwards the body through a Durable Object and an
 * HTTP hop, which production does not have) and `cached POST - floor` the inspection's own cost.
 */
async function cachedVsHealth(service: Service, origin: LoopbackOrigin, file: BenchFile) {
  const url = `${origin.url}/files/${file.name}?t=cached-${runId}`;
  await inspect(service, url, "full");
  const once = async (path: string, init?: RequestInit, expectStatus = 200) => {
    const t0 = performance.now();
    const res = await fetch(`${service.base}${path}`, init);
    const body = await res.text();
    if (res.status !== expectStatus) throw new Error(`${path} answered ${res.status}, expected ${expectStatus}`);
    return { ms: performance.now() - t0, body };
  };
  const post = (target: string, expectStatus?: number) =>
    once("/api/v1/inspect", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: target }) }, expectStatus);
  const cachedGet = () => once(`/api/v1/inspect?url=${encodeURIComponent(url)}`);
  const cachedPost = () => post(url);
  // Same length as the cached call's body; refused (400) before any inspection.
  const floorCall = () => post(url.replace(/^http:/, "ftp:").replace(/^https:/, "ftps:"), 400);
  for (let i = 0; i < 20; i++) {
    await once("/health");
    await cachedGet();
    await cachedPost();
    await floorCall();
  }
  const health: number[] = [];
  const viaGet: number[] = [];
  const viaPost: number[] = [];
  const floor: number[] = [];
  const sources = new Map<string, number>();
  const count = (body: string) => {
    const source = (JSON.parse(body) as { responseSource?: string }).responseSource ?? "?";
    sources.set(source, (sources.get(source) ?? 0) + 1);
  };
  // Interleaved, so drift (GC, CPU frequency, other load) hits every series alike.
  for (let i = 0; i < cachedRequests; i++) {
    health.push((await once("/health")).ms);
    const g = await cachedGet();
    viaGet.push(g.ms);
    count(g.body);
    const p = await cachedPost();
    viaPost.push(p.ms);
    count(p.body);
    floor.push((await floorCall()).ms);
  }
  return {
    file: file.name, health: median(health), cached: median(viaGet), cachedPost: median(viaPost), postFloor: median(floor),
    sources: Object.fromEntries(sources),
  };
}

function pct(bytes: number, size: number): string {
  return `${((bytes / size) * 100).toFixed(bytes < size / 100 ? 2 : 1)} %`;
}

function printFile(file: BenchFile, size: number, rows: Row[]): string[] {
  const out: string[] = [];
  out.push(`\n${file.name} — ${file.label} (${kib(size)})`);
  out.push(`  ${"tool".padEnd(17)} ${"median ms".padStart(10)} ${"bytes at answer".padStart(24)} ${"req".padStart(4)}  ${"after settle".padStart(12)}  notes`);
  for (const r of rows) {
    if (r.samples.length === 0) {
      out.push(`  ${r.tool.padEnd(17)} FAILED: ${r.errors[0] ?? "?"}`);
      continue;
    }
    const notes: string[] = [];
    if (r.errors.length) notes.push(`${r.errors.length} failed: ${r.errors[0]}`);
    const first = r.samples[0]!.firstRange;
    if (r.tool === "service fast" && first) notes.push(`first request ${first}`);
    const failed = r.samples[0]!.extra?.failedStages;
    if (failed) notes.push(`failed stages: ${failed}`);
    const diag = r.samples[0]!.extra?.diagnostics as { bytesPulled?: number; requests?: number } | undefined;
    if (diag?.bytesPulled !== undefined) notes.push(`diagnostics: ${kib(diag.bytesPulled)} in ${diag.requests} req`);
    out.push(`  ${r.tool.padEnd(17)} ${r.medianMs.toFixed(0).padStart(10)} ${`${kib(r.medianBytes)} (${pct(r.medianBytes, size)})`.padStart(24)} ${String(r.medianRequests).padStart(4)}  ${kib(r.medianBytesSettled).padStart(12)}  ${notes.join("; ")}`);
  }
  const by = (name: string) => rows.find((r) => r.tool === name && r.samples.length > 0);
  const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b ? `${(a / b).toFixed(2)}x` : "n/a");
  const full = by("service full");
  const fast = by("service fast");
  const hand = by("ffprobe+ffmpeg") ?? by("ffprobe");
  const mm = by("music-metadata");
  const pis = by("probe-image-size");
  out.push(`  ratios: full/${hand?.tool ?? "-"} time ${ratio(full?.medianMs, hand?.medianMs)}, bytes ${ratio(full?.medianBytes, hand?.medianBytes)}; ` +
    `fast/ffprobe time ${ratio(fast?.medianMs, by("ffprobe")?.medianMs)}; ` +
    (mm ? `fast/music-metadata bytes ${ratio(fast?.medianBytes, mm.medianBytes)}, time ${ratio(fast?.medianMs, mm.medianMs)}` : "") +
    (pis ? `fast/probe-image-size bytes ${ratio(fast?.medianBytes, pis.medianBytes)}, time ${ratio(fast?.medianMs, pis.medianMs)}` : ""));
  return out;
}

async function main(): Promise<void> {
  const fileFilter = args.files?.split(",").map((s) => s.trim()).filter(Boolean);
  const toolFilter = args.tools?.split(",").map((s) => s.trim()).filter(Boolean);
  const files = benchFiles.filter((f) => !fileFilter || fileFilter.some((p) => f.name.includes(p)));
  if (files.length === 0) throw new Error(`no bench file matches ${args.files}`);
  const dir = await ensureBenchMedia(join(root, ".tmp", "bench-media"), files, (l) => console.log(l));
  const rtts = args.rtt === undefined ? undefined : args.rtt.split(",").map(Number).filter((n) => Number.isFinite(n) && n >= 0 && n <= maxRttMs);
  if (rtts?.length === 0) throw new Error(`--rtt wants a list of round-trip times in ms (0-${maxRttMs}), got ${args.rtt}`);
  // With --rtt, by default the service and what a user would run by hand instead.
  const byDefault = (t: Tool) => !rtts || t.name.startsWith("service") || t.name.startsWith("ffprobe");
  const chosenTools = tools.filter((t) => (toolFilter ? toolFilter.some((p) => t.name.includes(p)) : byDefault(t)));
  // No ETag or Last-Modified on /files, as the bench has always measured.
  const origin = await startLoopbackOrigin([dir], "127.0.0.1", {}, { validators: false });
  const proxy = rtts ? await startLatencyProxy({ host: "127.0.0.1", port: origin.port }, 0, { slowStart: args["slow-start"] }) : undefined;
  const reached = proxy ?? origin;
  const scratch = await mkdtemp(join(tmpdir(), "bench-"));
  console.log(`starting the service (node scripts/start.mjs), origin ${reached.url} allow-listed${proxy ? ` (latency proxy${args["slow-start"] ? ", TCP slow start" : ""})` : ""}...`);
  const service = await startService({
    env: {
      SSRF_ALLOWLIST: `127.0.0.1:${reached.port}`,
      FULL_WAIT_TIMEOUT_MS: "120000",
      // Hundreds of inspections from one client: the per-client limit would answer 429.
      INSPECT_RATE_LIMIT: "0",
      RUNNER_DISPATCH: args.dispatch === "queue" ? "queue" : "direct",
    },
    // wrangler dev reloads the Worker once after it is ready: the first timed call must not meet that reload.
    settlePosts: 5,
    maxLines: 400,
  });
  const ctx: RunCtx = { service, scratch, ...(proxy ? { proxy } : {}) };
  const lines: string[] = [];
  const results: Row[] = [];
  let cached: Awaited<ReturnType<typeof cachedVsHealth>> | undefined;
  try {
    // Warm-up, not counted: first wasm/engine start-up, JIT, page cache, keep-alive connections.
    for (const file of [files[0]!, ...files.filter((f) => f.kind !== files[0]!.kind).slice(0, 2)]) {
      for (const tool of chosenTools.filter((t) => t.applies(file))) {
        const r = await measure(tool, file, `warm-${tool.name.replace(/\W/g, "")}-${runId}`, origin, ctx);
        if (typeof r === "string") console.log(`  warm-up ${tool.name} on ${file.name}: ${r}`);
      }
    }
    for (const rtt of rtts ?? [undefined]) {
    if (proxy && rtt !== undefined) {
      proxy.rttMs = rtt;
      console.log(`\n=== RTT ${rtt} ms ===`);
    }
    for (const file of files) {
      const size = fileSize(dir, file.name);
      const applicable = chosenTools.filter((t) => t.applies(file));
      const rows: Row[] = applicable.map((t) => ({
        file: file.name, size, tool: t.name, samples: [], errors: [], medianMs: NaN, medianBytes: NaN, medianRequests: NaN, medianBytesSettled: NaN,
        ...(rtt !== undefined ? { rttMs: rtt } : {}),
      }));
      for (let round = 0; round < rounds; round++) {
        // Rotate the order each round.
        for (let i = 0; i < applicable.length; i++) {
          const k = (i + round) % applicable.length;
          const tool = applicable[k]!;
          const tag = `${tool.name.replace(/\W/g, "")}-${file.name.replace(/\W/g, "")}-${round}-${rtt ?? "x"}-${runId}`;
          const sample = await measure(tool, file, tag, origin, ctx);
          if (typeof sample === "string") rows[k]!.errors.push(sample);
          else rows[k]!.samples.push(sample);
        }
      }
      for (const r of rows) {
        r.medianMs = median(r.samples.map((s) => s.ms));
        r.medianBytes = median(r.samples.map((s) => s.bytes));
        r.medianRequests = median(r.samples.map((s) => s.requests));
        r.medianBytesSettled = median(r.samples.map((s) => s.bytesSettled));
      }
      if (args.verbose) {
        for (const r of rows) for (const s of r.samples) console.log(`  ${r.tool}: ${s.log.join(", ")}`);
      }
      const printed = printFile(file, size, rows);
      console.log(printed.join("\n"));
      lines.push(...printed);
      results.push(...rows);
    }
    }
    if (rtts) {
      const table = rttReport(results, files, rtts);
      console.log(`\n${table.join("\n")}`);
      lines.push(...table);
    } else if (cachedRequests > 0) {
      cached = await cachedVsHealth(service, origin, files.find((f) => f.kind === "image") ?? files[0]!);
      const ratio = (x: number) => `${(x / cached!.health).toFixed(2)}x`;
      const line = `\ncached inspection vs GET /health (${cachedRequests} interleaved rounds, ${cached.file}), medians:\n` +
        `  GET  /api/v1/inspect?url=  ${cached.cached.toFixed(2)} ms vs ${cached.health.toFixed(2)} ms = ${ratio(cached.cached)}\n` +
        `  POST /api/v1/inspect       ${cached.cachedPost.toFixed(2)} ms = ${ratio(cached.cachedPost)}; ` +
        `the same POST refused 400 before inspecting (the floor of any POST under wrangler dev) ${cached.postFloor.toFixed(2)} ms = ${ratio(cached.postFloor)}; ` +
        `POST's inspection cost over that floor ${(cached.cachedPost - cached.postFloor).toFixed(2)} ms\n` +
        `  responseSource ${JSON.stringify(cached.sources)}`;
      console.log(line);
      lines.push(line);
    }
  } finally {
    await service.stop();
    await proxy?.close();
    await origin.close();
    await rm(scratch, { recursive: true, force: true });
  }
  const summary = rtts ? [] : targets(results, cached);
  console.log(`\n${summary.join("\n")}`);
  mkdirSync(join(args.json!, ".."), { recursive: true });
  writeFileSync(args.json!, JSON.stringify({ runId, rounds, results, cached, summary }, null, 2));
  console.log(`\nrounds ${rounds}; runner dispatch ${args.dispatch}${rtts ? `; RTT ${rtts.join(", ")} ms` : ""}; JSON in ${args.json}`);
}

/** The issue's targets, each checked against this run's medians. */
function targets(rows: Row[], cached: { health: number; cached: number; cachedPost: number; postFloor: number } | undefined): string[] {
  const out = ["targets:"];
  const row = (file: string, tool: string) => rows.find((r) => r.file === file && r.tool === tool && r.samples.length > 0);
  for (const file of benchFiles) {
    const full = row(file.name, "service full");
    const hand = row(file.name, "ffprobe+ffmpeg");
    if (full && hand && file.kind !== "audio") {
      const heavy = file.kind === "video" || file.name.endsWith(".tif");
      if (heavy) out.push(`  full time ≤ 1.2x ffprobe+ffmpeg, ${file.name}: ${(full.medianMs / hand.medianMs).toFixed(2)}x ${full.medianMs / hand.medianMs <= 1.2 ? "MET" : "missed"}`);
    }
    if (full) {
      const limit = file.name === "h264-30mb-faststart.mp4" ? 0.25 * full.size : full.size + 16 * 1024;
      out.push(`  full bytes ≤ ${file.name === "h264-30mb-faststart.mp4" ? "25 % of file" : "file + 16 KiB"}, ${file.name}: ${pct(full.medianBytesSettled, full.size)} ${full.medianBytesSettled <= limit ? "MET" : "missed"}`);
    }
    const fast = row(file.name, "service fast");
    const mm = row(file.name, "music-metadata");
    if (fast && mm) out.push(`  fast bytes ≤ music-metadata's, ${file.name}: ${kib(fast.medianBytes)} vs ${kib(mm.medianBytes)} ${fast.medianBytes <= mm.medianBytes ? "MET" : "missed"}`);
    const first = fast?.samples[0]?.firstRange;
    if (fast && first) {
      const m = /^bytes=(\d+)-(\d+)$/.exec(first);
      const n = m ? Number(m[2]) - Number(m[1]) + 1 : Infinity;
      out.push(`  fast first request ≤ 16 KiB, ${file.name}: ${first} ${n <= 16 * 1024 ? "MET" : "missed"}`);
    }
  }
  if (cached) out.push(`  cached (GET form) ≤ 1.2x /health: ${(cached.cached / cached.health).toFixed(2)}x ${cached.cached / cached.health <= 1.2 ? "MET" : "missed"}` +
    `; POST form ${(cached.cachedPost / cached.health).toFixed(2)}x (its floor ${(cached.postFloor / cached.health).toFixed(2)}x)`);
  return out;
}

if (args.cpu) await (await import("./cpu-cost.ts")).cpuCost({ rounds, ...(args.files ? { files: args.files } : {}) });
else await main();
