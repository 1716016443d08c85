/**
 * Memory under a soak: the real `npm start`, WARMUP requests, then COUNT requests mixing
 * fast/standard/full inspections of a small set of generated files (URL variants, so records and Durable
 * Objects keep being created) with fuzzed requests, then IDLE seconds of nothing. Resident memory (VmRSS) of
 * workerd and the media runner is read after warm-up, at the end, and after the idle time. Passes when the
 * service's workerd and the runner are within 64 MiB of their warm-up figure after the idle time; the summed
 * figure with wrangler dev's proxy workerd is printed beside it. One summary line.
 *
 *   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && npm run soak -- --count=10000 --idle=60'
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureMediaFixtures } from "../testkit/media-fixtures.ts";
import { startLoopbackOrigin } from "../testkit/loopback-origin.ts";
import { fuzzRequest, send, startCorruptOrigin } from "../testkit/reliability/fuzz.ts";
import { devReloads, inspect, pool, startService } from "../testkit/reliability/service.ts";
import { isolateHeaps } from "../testkit/reliability/isolate-heaps.ts";

const root = join(import.meta.dirname, "..");
/** The target: resident memory after the soak and the idle time, above the warm-up figure. */
export const SOAK_MAX_GROWTH_MIB = 64;
const files = ["image-1280x720.png", "audio.mp3", "audio.flac", "video.mp4", "video.webm", "audio.ogg"];
const profiles = ["fast", "standard", "full"];
/** Distinct URL variants by default: enough to keep creating records, few enough that many requests hit a record. */
const VARIANTS = 400;
const IDLE_STEP_SECONDS = 15;

/**
 * What the kernel says about workerd: resident memory split into anonymous (tcmalloc heap, V8, SQLite) and
 * file-backed, and how many SQLite files are open (one per live Durable Object in local mode). `wrangler dev`
 * runs two workerd processes: the service's runtime (it holds the persisted state, .wrangler/state or LOCAL_STATE_DIR) and
 * wrangler's own dev proxy in front of it, which production does not have; they are reported apart.
 */
export interface ProcessStats { rss: number; anon: number; file: number; sqliteFds: number; fds: number }

function statsOf(pid: number): (ProcessStats & { service: boolean }) | undefined {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0);
    const out = { rss: Math.round(kb("Rss") / 1024), anon: Math.round(kb("Anonymous") / 1024), file: Math.round((kb("Rss") - kb("Anonymous")) / 1024), sqliteFds: 0, fds: 0, service: false };
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      out.fds += 1;
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        // wrangler's persisted layout (<LOCAL_STATE_DIR or .wrangler/state>/v3/...): only the service's runtime opens it.
        if (target.includes("/v3/do/") || target.includes("/v3/r2/") || target.includes("/v3/cache/")) out.service = true;
        if (target.endsWith(".sqlite")) out.sqliteFds += 1;
      } catch {
        /* closed meanwhile */
      }
    }
    return out;
  } catch {
    return undefined; // exited meanwhile
  }
}

/** The pids of the service's workerd (the one holding the persisted state). */
function servicePids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (/workerd\S* serve/.test(readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ")) && statsOf(Number(name))?.service) pids.push(Number(name));
    } catch {
      /* exited meanwhile */
    }
  }
  return pids;
}

/** V8 heap (used/total MiB) of the service's Worker isolate (our code and its Durable Objects) and of all its isolates. */
export async function workerHeap(): Promise<{ worker: string; allIsolatesTotalMiB: number }> {
  let worker = "n/a";
  let all = 0;
  for (const pid of servicePids()) {
    for (const [id, h] of Object.entries(await isolateHeaps(pid))) {
      all += h.totalMiB;
      if (id.startsWith("core:user:")) worker = `${h.usedMiB}/${h.totalMiB}`;
    }
  }
  return { worker, allIsolatesTotalMiB: all };
}

export function workerdStats(): { service: ProcessStats; devProxy: ProcessStats } {
  const zero = (): ProcessStats => ({ rss: 0, anon: 0, file: 0, sqliteFds: 0, fds: 0 });
  const out = { service: zero(), devProxy: zero() };
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ");
    } catch {
      continue;
    }
    if (!/workerd\S* serve/.test(cmd)) continue;
    const one = statsOf(Number(name));
    if (!one) continue;
    const into = one.service ? out.service : out.devProxy;
    for (const key of ["rss", "anon", "file", "sqliteFds", "fds"] as const) into[key] += one[key];
  }
  return out;
}

export interface SoakOptions {
  count: number;
  warmup: number;
  idleSeconds: number;
  concurrency: number;
  /** Distinct URL variants per file (0: every request a new URL, so a new Durable Object). */
  variants?: number;
  /** Out of 10 requests, how many are fuzzed (each fuzzed media URL is a new object too). */
  fuzzPerTen?: number;
  /** Out of 10 requests, how many inspect a never-seen URL (`?t=i`, a new record and object each time). */
  freshPerTen?: number;
  /** Log the resident memory every this many requests, from the cold start on (warm-up included). */
  sampleEvery?: number;
  /** Stop sending after this many seconds of the measured phase (0: no limit); the summary says how many were sent. */
  maxSeconds?: number;
  log: (l: string) => void;
}

export async function runSoak(opts: SoakOptions) {
  const variants = opts.variants ?? VARIANTS;
  const fuzzPerTen = opts.fuzzPerTen ?? 3;
  const freshPerTen = opts.freshPerTen ?? 0;
  const sampleEvery = opts.sampleEvery ?? 1000;
  const stats = (label: string) => opts.log(`${label}: workerd ${JSON.stringify(workerdStats())}`);
  // V8 heap of the Worker's isolate (used/total MiB) beside the process figures: JavaScript vs native memory.
  const heap = async (label: string) => {
    const h = await workerHeap();
    opts.log(`${label}: Worker isolate V8 heap used/total MiB ${h.worker}, all isolates' heaps ${h.allIsolatesTotalMiB} MiB`);
    return h;
  };
  const mediaDir = ensureMediaFixtures(join(root, "test", ".fixtures", "media"));
  const origin = await startLoopbackOrigin([mediaDir]);
  const corrupt = await startCorruptOrigin([mediaDir, join(root, "test", "fixtures", "images")]);
  const service = await startService({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port},127.0.0.1:${corrupt.port}` });
  const byStatus: Record<string, number> = {};
  const samples: string[] = [];
  const request = async (i: number) => {
    let status: number;
    let text: string;
    if (i % 10 >= fuzzPerTen) {
      const fresh = i % 10 < fuzzPerTen + freshPerTen;
      const url = `${origin.url}/media/${files[i % files.length]}?${fresh ? `t=${i}` : `v=${variants === 0 ? i : i % variants}`}`;
      const r = await inspect(service.base, url, `profile=${profiles[Math.floor(i / files.length) % 3]}`, 60_000);
      status = r.status;
      text = JSON.stringify(r.body);
    } else {
      const r = await send(service.base, fuzzRequest(7, i, corrupt), 60_000);
      status = r.status;
      text = r.text;
    }
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    if ((status >= 500 || status === 0) && samples.length < 5) samples.push(`${status}: ${text.slice(0, 200)}`);
  };
  try {
    // The cold figure: the service has answered its start-up POSTs and nothing else.
    const cold = service.rss();
    opts.log(`cold start: ${JSON.stringify(cold)}`);
    stats("cold start");
    const coldHeap = await heap("cold start");
    const coldSplit = workerdStats();
    let warmDone = 0;
    await pool(opts.warmup, opts.concurrency, async (i) => {
      await request(i);
      if (++warmDone % sampleEvery === 0) opts.log(`warm-up ${warmDone} requests, rss ${JSON.stringify(service.rss())}`);
    });
    await new Promise((r) => setTimeout(r, 5_000)); // let background jobs of the warm-up finish
    const warm = service.rss();
    opts.log(`warm-up done (${opts.warmup} requests): ${JSON.stringify(warm)}`);
    stats("after warm-up");
    const warmHeap = await heap("after warm-up");
    const warmSplit = workerdStats();
    let peak = { ...warm };
    let peakObjects = 0;
    const sampler = setInterval(() => {
      const now = service.rss();
      peak = { workerd: Math.max(peak.workerd, now.workerd), runner: Math.max(peak.runner, now.runner) };
      peakObjects = Math.max(peakObjects, workerdStats().service.sqliteFds);
    }, 1_000);
    const started = performance.now();
    let done = 0;
    let deathLogged = false;
    const stopAt = opts.maxSeconds ? started + opts.maxSeconds * 1000 : Infinity;
    await pool(opts.count, opts.concurrency, async (i) => {
      if (performance.now() > stopAt) return;
      await request(opts.warmup + i);
      if (++done % sampleEvery === 0) {
        opts.log(`${done} requests, rss ${JSON.stringify(service.rss())}`);
        stats(`${done} requests`);
        if (service.rss().workerd === 0 && !deathLogged) {
          deathLogged = true; // the service stopped: its last lines say why
          opts.log(`service stopped; its last output:\n${service.logs.slice(-40).join("\n")}`);
        }
      }
    });
    const seconds = Math.round((performance.now() - started) / 1000);
    clearInterval(sampler);
    const end = service.rss();
    stats("end");
    await heap("end");
    // Idle in steps, so the log shows whether objects are evicted and memory given back over the idle time.
    for (let waited = 0; waited < opts.idleSeconds; waited += IDLE_STEP_SECONDS) {
      await new Promise((r) => setTimeout(r, Math.min(IDLE_STEP_SECONDS, opts.idleSeconds - waited) * 1000));
      stats(`idle ${Math.min(waited + IDLE_STEP_SECONDS, opts.idleSeconds)} s`);
    }
    const idle = service.rss();
    const idleSplit = workerdStats();
    const idleHeap = await heap("after idle");
    return { coldHeap, warmHeap, idleHeap, sent: done, cold, coldSplit, warm, peak, end, idle, warmSplit, idleSplit, peakObjects, byStatus, seconds, samples, devReloads: devReloads.count };
  } finally {
    await service.stop();
    await corrupt.close();
    await origin.close();
  }
}

if (process.argv[1]?.endsWith("soak.ts")) {
  const { values } = parseArgs({
    options: {
      count: { type: "string", default: "10000" },
      warmup: { type: "string", default: "500" },
      idle: { type: "string", default: "60" },
      concurrency: { type: "string", default: "20" },
      variants: { type: "string", default: String(VARIANTS) },
      "fuzz-per-ten": { type: "string", default: "3" },
      "fresh-per-ten": { type: "string", default: "0" },
      "sample-every": { type: "string", default: "1000" },
      "max-seconds": { type: "string", default: "0" },
    },
  });
  const r = await runSoak({
    count: Number(values.count), warmup: Number(values.warmup), idleSeconds: Number(values.idle), concurrency: Number(values.concurrency),
    variants: Number(values.variants), fuzzPerTen: Number(values["fuzz-per-ten"]),
    freshPerTen: Number(values["fresh-per-ten"]), sampleEvery: Number(values["sample-every"]), maxSeconds: Number(values["max-seconds"]),
    log: (l) => console.error(l),
  });
  for (const line of r.samples) console.error(line);
  const growth = { workerd: r.idle.workerd - r.warm.workerd, runner: r.idle.runner - r.warm.runner };
  const split = (k: "service" | "devProxy") => `${r.warmSplit[k].rss} -> ${r.idleSplit[k].rss} (+${r.idleSplit[k].rss - r.warmSplit[k].rss})`;
  // The service is the workerd that runs the Worker and its objects, and the runner; wrangler dev's proxy
  // workerd only forwards local requests (it does not exist on Cloudflare), so it is reported, not judged.
  const serviceGrowth = r.idleSplit.service.rss - r.warmSplit.service.rss;
  // From cold and from after warm-up side by side: a cold start grows by what a runtime loads once (code,
  // JIT, caches filled to their bound), which is not a leak; growth after warm-up is what keeps going.
  const fromCold = { workerd: r.idle.workerd - r.cold.workerd, runner: r.idle.runner - r.cold.runner, service: r.idleSplit.service.rss - r.coldSplit.service.rss };
  console.log(
    `soak from cold: RSS MiB workerd ${r.cold.workerd} cold -> ${r.warm.workerd} after ${values.warmup} warm-up -> ${r.idle.workerd} after idle ` +
      `(+${fromCold.workerd} from cold, +${growth.workerd} after warm-up); service workerd ${r.coldSplit.service.rss} -> ${r.warmSplit.service.rss} -> ${r.idleSplit.service.rss} ` +
      `(+${fromCold.service} from cold, +${serviceGrowth} after warm-up); runner ${r.cold.runner} -> ${r.warm.runner} -> ${r.idle.runner} ` +
      `(+${fromCold.runner} from cold, +${growth.runner} after warm-up); Worker isolate V8 heap used/total ${r.coldHeap.worker} -> ${r.warmHeap.worker} -> ${r.idleHeap.worker}, ` +
      `all isolates' heaps ${r.coldHeap.allIsolatesTotalMiB} -> ${r.warmHeap.allIsolatesTotalMiB} -> ${r.idleHeap.allIsolatesTotalMiB}`,
  );
  const ok = serviceGrowth <= SOAK_MAX_GROWTH_MIB && growth.runner <= SOAK_MAX_GROWTH_MIB;
  const allOk = growth.workerd <= SOAK_MAX_GROWTH_MIB && growth.runner <= SOAK_MAX_GROWTH_MIB;
  console.log(
    `soak: ${r.sent} of ${values.count} requests (after ${values.warmup} warm-up) in ${r.seconds} s; RSS MiB workerd ${r.warm.workerd} warm -> ${r.peak.workerd} peak -> ${r.end.workerd} end -> ` +
      `${r.idle.workerd} after ${values.idle} s idle (+${growth.workerd}); runner ${r.warm.runner} -> ${r.peak.runner} -> ${r.end.runner} -> ` +
      `${r.idle.runner} (+${growth.runner}); workerd split: service ${split("service")}, wrangler dev proxy ${split("devProxy")}, ` +
      `peak open SQLite files ${r.peakObjects}; target +${SOAK_MAX_GROWTH_MIB} (service workerd and runner): ${ok ? "met" : "NOT met"}, ` +
      `(every workerd, dev proxy included): ${allOk ? "met" : "NOT met"}; dev-server reloads resent ${r.devReloads}; by status ${JSON.stringify(r.byStatus)}`,
  );
  process.exit(ok ? 0 : 1);
}
