/**
 * Bounded, seeded fuzz of the real `npm start`: COUNT requests (random methods, paths,
 * content types, bodies, query strings, and corrupted media made from the test fixtures) at CONCURRENCY.
 * Passes with zero 500s and no hang (every request answered within its time limit). One summary line.
 *
 *   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && npm run fuzz -- --count=10000 --seed=1'
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureMediaFixtures } from "../testkit/media-fixtures.ts";
import { fuzzRequest, send, startCorruptOrigin } from "../testkit/reliability/fuzz.ts";
import { pool, startService, type Service } from "../testkit/reliability/service.ts";
import { devReloads } from "../testkit/reliability/service.ts";

const root = join(import.meta.dirname, "..");
/** Longest acceptable answer; beyond it a request counts as hung (full waits up to FULL_WAIT_TIMEOUT_MS). */
export const FUZZ_REQUEST_TIMEOUT_MS = 60_000;

export interface FuzzResult {
  count: number;
  byStatus: Record<string, number>;
  serverErrors: { status: number; label: string; text: string }[];
  hangs: number;
  p99Ms: number;
}

export async function fuzzCorruptOrigin() {
  return startCorruptOrigin([ensureMediaFixtures(join(root, "test", ".fixtures", "media")), join(root, "test", "fixtures", "images")]);
}

/** Runs the fuzz against an already started service (the soak reuses it). */
export async function runFuzz(service: Service, origin: { url: string; files: string[] }, opts: { count: number; seed: number; concurrency: number; offset?: number }): Promise<FuzzResult> {
  const byStatus: Record<string, number> = {};
  const serverErrors: FuzzResult["serverErrors"] = [];
  const times: number[] = [];
  let hangs = 0;
  await pool(opts.count, opts.concurrency, async (i) => {
    const req = fuzzRequest(opts.seed, (opts.offset ?? 0) + i, origin);
    const res = await send(service.base, req, FUZZ_REQUEST_TIMEOUT_MS);
    byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
    times.push(res.ms);
    if (res.status === 0) hangs += 1;
    if (res.status === 500 && serverErrors.length < 20) serverErrors.push({ status: res.status, label: req.label, text: res.text });
  });
  times.sort((a, b) => a - b);
  return { count: opts.count, byStatus, serverErrors, hangs, p99Ms: Math.round(times[Math.floor(times.length * 0.99)] ?? 0) };
}

export async function fuzzOnce(opts: { count: number; seed: number; concurrency: number }): Promise<FuzzResult> {
  const origin = await fuzzCorruptOrigin();
  const service = await startService({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
  try {
    return await runFuzz(service, origin, opts);
  } finally {
    await service.stop();
    await origin.close();
  }
}

export function fuzzSummary(r: FuzzResult, seed: number): string {
  const fiveHundreds = r.byStatus["500"] ?? 0;
  return `fuzz: ${r.count} requests (seed ${seed}), 500s ${fiveHundreds}, hangs ${r.hangs}, dev-server reloads resent ${devReloads.count}, p99 ${r.p99Ms} ms, by status ${JSON.stringify(r.byStatus)}`;
}

if (process.argv[1]?.endsWith("fuzz.ts")) {
  const { values } = parseArgs({
    options: { count: { type: "string", default: "10000" }, seed: { type: "string", default: "1" }, concurrency: { type: "string", default: "20" } },
  });
  const seed = Number(values.seed);
  const result = await fuzzOnce({ count: Number(values.count), seed, concurrency: Number(values.concurrency) });
  for (const e of result.serverErrors.slice(0, 5)) console.error(`500 for ${e.label}: ${e.text}`);
  console.log(fuzzSummary(result, seed));
  process.exit(result.hangs === 0 && !result.byStatus["500"] ? 0 : 1);
}
