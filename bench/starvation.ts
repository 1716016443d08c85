/**
 * Starvation: an unrelated caller's inspection's time alone, then behind one caller's SLOW inspections of
 * media on slow origins (each origin sends its first 64 KiB at once, then 4 KiB/s, so the runner's jobs for them
 * wait on the network until their deadlines), side by side in one run of the real `npm start` on loopback.
 * Prints the ratio (target <= 2) and where the unrelated job's time went (the runner's queue wait vs its run, and
 * the run's steps from the runner's job line).
 *
 * Each round times one unrelated inspection alone, then one behind a fresh pile of slow inspections, so the two
 * samples of a round are taken a few seconds apart: on a machine shared with other work the load changes
 * between minutes, and a ratio of samples taken far apart measured the neighbours as much as the runner.
 *
 *   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && npm run starvation'
 *
 * Options: --slow=12 (slow inspections), --origins=4 (slow origins they are spread over), --samples=5 (rounds),
 * --spoof (the slow inspections claim the unrelated caller's address in CF-Connecting-IP), --client-ip-source=
 * cloudflare|none (whether the service believes that header: cloudflare stands in for Cloudflare's edge, the
 * default; none is what `npm start` and any deployment without the edge use).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureMediaFixtures } from "../testkit/media-fixtures.ts";
import { startLoopbackOrigin } from "../testkit/loopback-origin.ts";
import { startSlowOrigins } from "../testkit/reliability/slow-origin.ts";
import { inspect, percentile, startService, type Service } from "../testkit/reliability/service.ts";

export interface StarvationResult {
  /** p50 ms of the unrelated inspection alone, then behind the slow ones. */
  aloneMs: number;
  behindMs: number;
  ratio: number;
  /** p50 of the unrelated jobs' wait for a runner slot (from the runner's job lines), alone and behind. */
  aloneWaitMs: number;
  behindWaitMs: number;
  /** p50 of the unrelated jobs' run time in the runner (slot wait excluded), alone and behind. */
  aloneRunMs: number;
  behindRunMs: number;
  /** Per round: behind / alone. */
  roundRatios: number[];
  /** Status codes of the unrelated inspections (all should be 200). */
  statuses: Record<string, number>;
  /** The slow inspections' answers by status. */
  slowAnswers: Record<string, number>;
}

const root = join(import.meta.dirname, "..");
/** The unrelated inspection: a video with every runner stage (metadata, thumbnail, placeholder, palette). */
const unrelatedFile = "video.mp4";
const unrelatedProfile = "profile=full";
/** The two callers (CF-Connecting-IP): the slow inspections are one caller's, the unrelated one another's. */
const slowCaller = "198.51.100.1";
const unrelatedCaller = "203.0.113.1";
/** Time for the slow inspections to pass the edge's probe and reach the runner before the unrelated one is sent. */
const pileUpMs = 2_000;
/** Longest wait for the slow inspections to end after the measurement (their jobs end at the fetch deadline). */
const drainMs = 60_000;

interface JobLine {
  host: string;
  waitMs: number;
  ms: number;
  outcome: string;
  /** The job's steps in ms (fetch, metadata, frame, thumbnail, ...), on success. */
  timings?: Record<string, number>;
}

/** The runner's `job` log lines for one host, parsed (RUNNER_LOG_LEVEL=info). */
function jobLines(service: Service, host: string): JobLine[] {
  const out: JobLine[] = [];
  for (const line of service.logs) {
    if (!line.includes('"job"') || !line.includes(host)) continue;
    try {
      const job = (JSON.parse(line.slice(line.indexOf("{"))) as { job?: JobLine }).job;
      if (job?.host === host) out.push(job);
    } catch {
      /* not a job line */
    }
  }
  return out;
}

/** CPU ms (user + system) of every process this user can read, by pid, with its name: where the CPU went. */
function cpuByProcess(): Map<number, { name: string; ms: number }> {
  const out = new Map<number, { name: string; ms: number }>();
  const tickMs = 10; // USER_HZ is 100 on Linux
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      const name = processName(cmd, stat.slice(stat.indexOf("(") + 1, close));
      out.set(Number(entry), { name, ms: (Number(fields[11]) + Number(fields[12])) * tickMs });
    } catch {
      /* exited */
    }
  }
  return out;
}

/** A short name for a process: the engine, workerd, or the node script it runs. */
function processName(cmd: string[], comm: string): string {
  if (comm === "node" || comm.startsWith("node")) {
    const script = cmd.find((a) => /\.(ts|mjs|js)$/.test(a) && !a.includes("node_modules/tsx"));
    return `node ${script?.split("/").slice(-2).join("/") ?? comm}`;
  }
  return comm;
}

/** CPU ms spent between two snapshots, summed by process name (processes that started in between count whole). */
function cpuSpent(before: Map<number, { name: string; ms: number }>, after: Map<number, { name: string; ms: number }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [pid, { name, ms }] of after) {
    const spent = ms - (before.get(pid)?.ms ?? 0);
    if (spent > 0) out[name] = (out[name] ?? 0) + spent;
  }
  return out;
}

export async function runStarvation(opts: {
  slow: number;
  origins: number;
  samples: number;
  log?: (line: string) => void;
  /** The slow inspections send the unrelated caller's address as theirs. */
  spoof?: boolean;
  clientIpSource?: "cloudflare" | "none";
}): Promise<StarvationResult> {
  const slowAs = opts.spoof ? unrelatedCaller : slowCaller;
  const dir = ensureMediaFixtures(join(root, "test", ".fixtures", "media"));
  const origin = await startLoopbackOrigin([dir]);
  const slowOrigins = await startSlowOrigins(opts.origins, dir);
  // CF-Connecting-IP names the two callers here as Cloudflare's edge would: the service is told to believe it.
  const service = await startService({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port},${slowOrigins.allowlist}`, RUNNER_LOG_LEVEL: "info", CLIENT_IP_SOURCE: opts.clientIpSource ?? "cloudflare" });
  const host = `127.0.0.1:${origin.port}`;
  const statuses: Record<string, number> = {};
  const unrelated = async (phase: string, count = opts.samples) => {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const r = await inspect(service.base, `${origin.url}/media/${unrelatedFile}?${phase}=${i}`, unrelatedProfile, undefined, unrelatedCaller);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      times.push(r.ms);
    }
    return times;
  };
  try {
    await unrelated("warm", 2); // wasm init, first Durable Object, ffmpeg's first start
    const slowAnswers: Record<string, number> = {};
    const alone: number[] = [];
    const behind: number[] = [];
    const behindCpu: Record<string, number>[] = [];
    const aloneJobs: JobLine[] = [];
    const behindJobs: JobLine[] = [];
    // One round per sample: the unrelated inspection alone, then the slow inspections pile up, one unrelated
    // inspection is timed behind them, and the round ends when the slow ones have (each sample sees the same
    // pile, not the tail of the previous one).
    for (let round = 0; round < opts.samples; round++) {
      let mark = jobLines(service, host).length;
      alone.push(...(await unrelated(`alone${round}`, 1)));
      aloneJobs.push(...jobLines(service, host).slice(mark));
      const slow = Array.from({ length: opts.slow }, async (_, i) => {
        const r = await inspect(service.base, slowOrigins.url(i % opts.origins, "video-moov-end.mp4", `slow-${round}-${i}`), unrelatedProfile, drainMs, slowAs);
        slowAnswers[r.status] = (slowAnswers[r.status] ?? 0) + 1;
      });
      await new Promise((r) => setTimeout(r, pileUpMs));
      mark = jobLines(service, host).length;
      const cpuBefore = cpuByProcess();
      behind.push(...(await unrelated(`behind${round}`, 1)));
      behindCpu.push(cpuSpent(cpuBefore, cpuByProcess()));
      behindJobs.push(...jobLines(service, host).slice(mark));
      await Promise.race([Promise.all(slow), new Promise((r) => setTimeout(r, drainMs))]);
    }
    const steps = (jobs: JobLine[]) => jobs.map((j) => ({ waitMs: j.waitMs, ms: j.ms, ...j.timings }));
    opts.log?.(`alone ms ${JSON.stringify(alone.map(Math.round))}, behind ms ${JSON.stringify(behind.map(Math.round))}`);
    opts.log?.(`CPU ms by process during each unrelated inspection behind the slow ones: ${JSON.stringify(behindCpu)}`);
    opts.log?.(`runner jobs alone ${JSON.stringify(steps(aloneJobs))}`);
    opts.log?.(`runner jobs behind ${JSON.stringify(steps(behindJobs))}`);
    const aloneMs = percentile(alone, 50);
    const behindMs = percentile(behind, 50);
    const p50 = (values: number[]) => Math.round(percentile(values, 50));
    return {
      aloneMs: Math.round(aloneMs),
      behindMs: Math.round(behindMs),
      ratio: Math.round((behindMs / aloneMs) * 100) / 100,
      aloneWaitMs: p50(aloneJobs.map((j) => j.waitMs)),
      behindWaitMs: p50(behindJobs.map((j) => j.waitMs)),
      aloneRunMs: p50(aloneJobs.map((j) => j.ms)),
      behindRunMs: p50(behindJobs.map((j) => j.ms)),
      roundRatios: behind.map((b, i) => Math.round((b / alone[i]!) * 100) / 100),
      statuses,
      slowAnswers,
    };
  } finally {
    await service.stop();
    await slowOrigins.close();
    await origin.close();
  }
}

if (process.argv[1]?.endsWith("starvation.ts")) {
  const { values } = parseArgs({
    options: {
      slow: { type: "string", default: "12" },
      origins: { type: "string", default: "4" },
      samples: { type: "string", default: "5" },
      spoof: { type: "boolean", default: false },
      "client-ip-source": { type: "string", default: "cloudflare" },
    },
  });
  const clientIpSource = values["client-ip-source"] === "none" ? "none" : "cloudflare";
  const result = await runStarvation({
    slow: Number(values.slow), origins: Number(values.origins), samples: Number(values.samples), log: (l) => console.error(l),
    spoof: values.spoof, clientIpSource,
  });
  if (values.spoof) console.log(`spoofed: the slow inspections claimed the unrelated caller's address; CLIENT_IP_SOURCE=${clientIpSource}`);
  console.log(
    `starvation: unrelated ${unrelatedFile} (${unrelatedProfile}) p50 ${result.aloneMs} ms alone -> ${result.behindMs} ms behind ${values.slow} slow-origin inspections ` +
      `over ${values.origins} origins (ratio ${result.ratio}x, target <= 2x; per round ${JSON.stringify(result.roundRatios)}); ` +
      `runner slot wait p50 ${result.aloneWaitMs} -> ${result.behindWaitMs} ms, run p50 ${result.aloneRunMs} -> ${result.behindRunMs} ms; ` +
      `unrelated answers ${JSON.stringify(result.statuses)}, slow answers ${JSON.stringify(result.slowAnswers)}`,
  );
  process.exit(result.ratio <= 2 ? 0 : 1);
}
