/**
 * Starvation (issue 20 items 7 and 8): an unrelated inspection's time alone, then behind SLOW inspections of
 * media on slow origins (each origin sends its first 64 KiB at once, then 4 KiB/s, so the runner's jobs for them
 * wait on the network until their deadlines), side by side in one run of the real `npm start` on loopback.
 * Prints the ratio (target <= 2) and where the unrelated job's time went (the runner's queue wait vs its run).
 *
 *   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && npm run starvation'
 *
 * Options: --slow=12 (slow inspections), --origins=4 (slow origins they are spread over), --samples=3.
 */
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
  /** Status codes of the unrelated inspections (all should be 200). */
  statuses: Record<string, number>;
  /** The slow inspections' answers by status. */
  slowAnswers: Record<string, number>;
}

const root = join(import.meta.dirname, "..");
/** The unrelated inspection: a video with every runner stage (metadata, thumbnail, placeholder, palette). */
const unrelatedFile = "video.mp4";
const unrelatedProfile = "profile=full";
/** Time for the slow inspections to pass the edge's probe and reach the runner before the unrelated one is sent. */
const pileUpMs = 2_000;
/** Longest wait for the slow inspections to end after the measurement (their jobs end at the fetch deadline). */
const drainMs = 60_000;

/** The runner's `job` log lines for one host, parsed (RUNNER_LOG_LEVEL=info). */
function jobLines(service: Service, host: string): { waitMs: number; ms: number; outcome: string }[] {
  const out: { waitMs: number; ms: number; outcome: string }[] = [];
  for (const line of service.logs) {
    if (!line.includes('"job"') || !line.includes(host)) continue;
    try {
      const job = (JSON.parse(line.slice(line.indexOf("{"))) as { job?: { host: string; waitMs: number; ms: number; outcome: string } }).job;
      if (job?.host === host) out.push(job);
    } catch {
      /* not a job line */
    }
  }
  return out;
}

export async function runStarvation(opts: { slow: number; origins: number; samples: number; log?: (line: string) => void }): Promise<StarvationResult> {
  const dir = ensureMediaFixtures(join(root, "test", ".fixtures", "media"));
  const origin = await startLoopbackOrigin([dir]);
  const slowOrigins = await startSlowOrigins(opts.origins, dir);
  const service = await startService({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port},${slowOrigins.allowlist}`, RUNNER_LOG_LEVEL: "info" });
  const host = `127.0.0.1:${origin.port}`;
  const statuses: Record<string, number> = {};
  const unrelated = async (phase: string, count = opts.samples) => {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const r = await inspect(service.base, `${origin.url}/media/${unrelatedFile}?${phase}=${i}`, unrelatedProfile);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      times.push(r.ms);
    }
    return times;
  };
  try {
    await unrelated("warm"); // wasm init, first Durable Object, ffmpeg's first start
    const before = jobLines(service, host).length;
    const alone = await unrelated("alone");
    const aloneJobs = jobLines(service, host).slice(before);
    const slowAnswers: Record<string, number> = {};
    const behind: number[] = [];
    const behindJobs: ReturnType<typeof jobLines> = [];
    // One round per sample: the slow inspections pile up, one unrelated inspection is timed behind them, and the
    // round ends when the slow ones have (each sample sees the same pile, not the tail of the previous one).
    for (let round = 0; round < opts.samples; round++) {
      const slow = Array.from({ length: opts.slow }, async (_, i) => {
        const r = await inspect(service.base, slowOrigins.url(i % opts.origins, "video-moov-end.mp4", `slow-${round}-${i}`), unrelatedProfile, drainMs);
        slowAnswers[r.status] = (slowAnswers[r.status] ?? 0) + 1;
      });
      await new Promise((r) => setTimeout(r, pileUpMs));
      const mid = jobLines(service, host).length;
      behind.push(...(await unrelated(`behind${round}`, 1)));
      behindJobs.push(...jobLines(service, host).slice(mid));
      await Promise.race([Promise.all(slow), new Promise((r) => setTimeout(r, drainMs))]);
    }
    opts.log?.(`alone ms ${JSON.stringify(alone.map(Math.round))}, behind ms ${JSON.stringify(behind.map(Math.round))}`);
    opts.log?.(`runner job lines alone ${JSON.stringify(aloneJobs)}, behind ${JSON.stringify(behindJobs)}`);
    const aloneMs = percentile(alone, 50);
    const behindMs = percentile(behind, 50);
    return {
      aloneMs: Math.round(aloneMs),
      behindMs: Math.round(behindMs),
      ratio: Math.round((behindMs / aloneMs) * 100) / 100,
      aloneWaitMs: Math.round(percentile(aloneJobs.map((j) => j.waitMs), 50)),
      behindWaitMs: Math.round(percentile(behindJobs.map((j) => j.waitMs), 50)),
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
    options: { slow: { type: "string", default: "12" }, origins: { type: "string", default: "4" }, samples: { type: "string", default: "3" } },
  });
  const result = await runStarvation({ slow: Number(values.slow), origins: Number(values.origins), samples: Number(values.samples), log: (l) => console.error(l) });
  console.log(
    `starvation: unrelated ${unrelatedFile} (${unrelatedProfile}) p50 ${result.aloneMs} ms alone -> ${result.behindMs} ms behind ${values.slow} slow-origin inspections ` +
      `over ${values.origins} origins (ratio ${result.ratio}x, target <= 2x); runner slot wait p50 ${result.aloneWaitMs} -> ${result.behindWaitMs} ms; ` +
      `unrelated answers ${JSON.stringify(result.statuses)}, slow answers ${JSON.stringify(result.slowAnswers)}`,
  );
  process.exit(result.ratio <= 2 ? 0 : 1);
}
