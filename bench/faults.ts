/**
 * Faults stay local: p50 latency of unrelated good inspections, first alone (baseline), then
 * while FAULTS concurrent clients keep inspecting misbehaving origins (slow, trickle 1 B/s, reset, hang; one
 * origin each). Drives the real `npm start` on loopback. Prints one summary line with the ratio.
 *
 *   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && npm run faults -- --faults=50 --samples=30'
 *
 * `--fresh` asks for a new URL on every attempt (each a new resource); FAULT_KINDS=reset (or slow,hang,trickle)
 * limits the kinds of fault origin.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureMediaFixtures } from "../testkit/media-fixtures.ts";
import { startLoopbackOrigin } from "../testkit/loopback-origin.ts";
import { startFaultOrigins } from "../testkit/reliability/fault-origin.ts";
import { inspect, percentile, startService } from "../testkit/reliability/service.ts";

export interface FaultsResult {
  baselineP50: number;
  faultedP50: number;
  ratio: number;
  goodErrors: number;
  faultAnswers: Record<string, number>;
  /** p50 ms of the fault clients' answers per kind (a retried reset is answered from the remembered error). */
  faultP50: Record<string, number>;
}

const root = join(import.meta.dirname, "..");
/** Smallest gap between two requests of one fault client. */
const faultRetryMs = 1_000;
const goodFiles = [
  ["image-1280x720.png", "standard"],
  ["audio.mp3", "standard"],
  ["video.mp4", "fast"],
  ["audio.flac", "fast"],
] as const;

export async function runFaults(opts: {
  faults: number;
  samples: number;
  /** A new URL on every attempt (each a new resource) instead of each client retrying its one URL. */
  freshUrls?: boolean;
  log?: (line: string) => void;
}): Promise<FaultsResult> {
  const origin = await startLoopbackOrigin([ensureMediaFixtures(join(root, "test", ".fixtures", "media"))]);
  const faults = await startFaultOrigins(opts.faults);
  // Default settings: an origin error is remembered for ERROR_TTL_SECONDS per URL, as in production.
  const service = await startService({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port},${faults.allowlist}` });
  let run = 0;
  const good = async (n: number) => {
    const times: number[] = [];
    const byFile: Record<string, number[]> = {};
    let errors = 0;
    for (let i = 0; i < n; i++) {
      const [file, profile] = goodFiles[i % goodFiles.length]!;
      const r = await inspect(service.base, `${origin.url}/media/${file}?g=${run}-${i}`, `profile=${profile}`);
      if (r.status !== 200 && r.status !== 202) errors += 1;
      times.push(r.ms);
      (byFile[`${file}:${profile}`] ??= []).push(r.ms);
    }
    run += 1;
    const p50ByFile = Object.fromEntries(Object.entries(byFile).map(([k, v]) => [k, percentile(v, 50)]));
    opts.log?.(`p50 by file: ${JSON.stringify(Object.fromEntries(Object.entries(p50ByFile).map(([k, v]) => [k, Math.round(v)])))}`);
    return { p50: percentile(times, 50), p50ByFile, errors };
  };
  try {
    await good(4); // warm-up (wasm init, first DO)
    const baseline = await good(opts.samples);
    const faultAnswers: Record<string, number> = {};
    const faultTimes: Record<string, number[]> = {};
    let stop = false;
    const profiles = ["fast", "standard", "full"];
    const kinds = (process.env.FAULT_KINDS ?? "").split(",").filter(Boolean);
    const faultClients = Array.from({ length: opts.faults }, async (_, i) => {
      if (kinds.length > 0 && !kinds.includes(faults.kind(i))) return;
      for (let k = 0; !stop; k++) {
        // Each client keeps asking for its one failing URL (as a caller retrying would); a stream of ever-new
        // URLs is the load suite's subject (bench/load.ts), not this one's.
        const nonce = opts.freshUrls ? `client-${i}-${k}` : `client-${i}`;
        const r = await inspect(service.base, faults.url(i, nonce), `profile=${profiles[k % 3]}`, 90_000);
        const key = `${faults.kind(i)}:${r.status}`;
        faultAnswers[key] = (faultAnswers[key] ?? 0) + 1;
        (faultTimes[faults.kind(i)] ??= []).push(r.ms);
        // A client retries at most once a second: a fault that answers at once (reset) must not turn into a
        // load test; what is measured is many origins misbehaving at the same time.
        if (r.ms < faultRetryMs) await new Promise((res) => setTimeout(res, faultRetryMs - r.ms));
      }
    });
    await new Promise((r) => setTimeout(r, 2_000)); // let the faults pile up
    const faulted = await good(opts.samples);
    stop = true;
    await Promise.race([Promise.all(faultClients), new Promise((r) => setTimeout(r, 30_000))]);
    return {
      baselineP50: Math.round(baseline.p50),
      faultedP50: Math.round(faulted.p50),
      // Per kind of good request (their costs differ several-fold, so a p50 over the mix jumps between kinds):
      // the median of the per-kind p50 ratios.
      ratio: Math.round(percentile(Object.keys(baseline.p50ByFile).map((k) => faulted.p50ByFile[k]! / baseline.p50ByFile[k]!), 50) * 100) / 100,
      goodErrors: baseline.errors + faulted.errors,
      faultAnswers,
      faultP50: Object.fromEntries(Object.entries(faultTimes).map(([k, v]) => [k, Math.round(percentile(v, 50))])),
    };
  } finally {
    await service.stop();
    await faults.close();
    await origin.close();
  }
}

if (process.argv[1]?.endsWith("faults.ts")) {
  const { values } = parseArgs({
    options: { faults: { type: "string", default: "50" }, samples: { type: "string", default: "30" }, fresh: { type: "boolean", default: false } },
  });
  const result = await runFaults({
    faults: Number(values.faults),
    samples: Number(values.samples),
    freshUrls: values.fresh,
    log: (l) => console.error(l),
  });
  console.log(
    `faults: ${values.faults} fault origins${values.fresh ? " (fresh URL per attempt)" : ""}, good p50 ${result.baselineP50} ms -> ${result.faultedP50} ms (median per-kind ratio ${result.ratio}x, target <= 2x), ` +
      `good errors ${result.goodErrors}, fault answers ${JSON.stringify(result.faultAnswers)}, fault p50 ms ${JSON.stringify(result.faultP50)}`,
  );
  process.exit(result.ratio <= 2 && result.goodErrors === 0 ? 0 : 1);
}
