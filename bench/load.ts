/**
 * Load against the real `npm start`: COUNT inspections at CONCURRENCY over URLS distinct
 * URLs of generated media, mixing fast and standard. Passes with zero errors (every answer 200 or 202) and
 * exactly one origin probe per URL (concurrent callers share one probe; later ones are served from the record).
 *
 *   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && npm run load -- --count=5000 --concurrency=50'
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureMediaFixtures } from "../testkit/media-fixtures.ts";
import { startLoopbackOrigin } from "../testkit/loopback-origin.ts";
import { inspect, percentile, pool, startService } from "../testkit/reliability/service.ts";
import { devReloads } from "../testkit/reliability/service.ts";

const root = join(import.meta.dirname, "..");
const files = ["image-1280x720.png", "audio.mp3", "audio.flac", "video.mp4", "video.webm", "audio.ogg", "audio.wav", "video-moov-end.mp4"];
const profiles = ["fast", "standard"];

export interface LoadResult {
  count: number;
  urls: number;
  errors: number;
  byStatus: Record<string, number>;
  p50: number;
  p99: number;
  /** URLs whose first bytes the Worker requested more than once (the probe). */
  probesOverOne: number;
  rps: number;
  /** A few error answers, for the report. */
  errorSamples: string[];
}

export async function runLoad(opts: { count: number; concurrency: number; urls: number }): Promise<LoadResult> {
  const origin = await startLoopbackOrigin([ensureMediaFixtures(join(root, "test", ".fixtures", "media"))]);
  const service = await startService({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
  const run = Date.now().toString(36);
  const urls = Array.from({ length: opts.urls }, (_, i) => `${origin.url}/media/${files[i % files.length]}?load=${run}-${i}`);
  const byStatus: Record<string, number> = {};
  const times: number[] = [];
  const errorSamples: string[] = [];
  try {
    const started = performance.now();
    await pool(opts.count, opts.concurrency, async (i) => {
      const r = await inspect(service.base, urls[i % urls.length]!, `profile=${profiles[Math.floor(i / urls.length) % 2]}`);
      byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      times.push(r.ms);
      if (r.status !== 200 && r.status !== 202 && errorSamples.length < 5) errorSamples.push(`${r.status} after ${Math.round(r.ms)} ms: ${JSON.stringify(r.body).slice(0, 200)}`);
    });
    const seconds = (performance.now() - started) / 1000;
    const stats = (await (await fetch(`${origin.url}/__stats`)).json()) as { requests: { path: string; range?: string; headers: Record<string, string> }[] };
    // The probe: the Worker's request for the first bytes (the runner sends its own user agent).
    const probes = new Map<string, number>();
    for (const r of stats.requests) {
      if (!r.path.includes(`load=${run}-`) || !String(r.headers["user-agent"] ?? "").startsWith("media-inspect/")) continue;
      if (!(r.range ?? "").startsWith("bytes=0-")) continue;
      probes.set(r.path, (probes.get(r.path) ?? 0) + 1);
    }
    if (process.env.LOAD_SHOW_LOGS) console.error(service.logs.filter((l) => !l.includes(" 200 OK") && !l.includes(" 202 Accepted")).join("\n"));
    const errors = Object.entries(byStatus).filter(([s]) => s !== "200" && s !== "202").reduce((n, [, c]) => n + c, 0);
    return {
      count: opts.count,
      urls: opts.urls,
      errors,
      byStatus,
      p50: Math.round(percentile(times, 50)),
      p99: Math.round(percentile(times, 99)),
      probesOverOne: urls.filter((u) => (probes.get(new URL(u).pathname + new URL(u).search) ?? 0) !== 1).length,
      rps: Math.round(opts.count / seconds),
      errorSamples,
    };
  } finally {
    await service.stop();
    await origin.close();
  }
}

export function loadSummary(r: LoadResult, concurrency: number): string {
  return `load: ${r.count} requests at concurrency ${concurrency} over ${r.urls} URLs, errors ${r.errors}, ` +
    `URLs without exactly one probe ${r.probesOverOne}, dev-server reloads resent ${devReloads.count}, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.rps} req/s, by status ${JSON.stringify(r.byStatus)}`;
}

if (process.argv[1]?.endsWith("load.ts")) {
  const { values } = parseArgs({
    options: { count: { type: "string", default: "5000" }, concurrency: { type: "string", default: "50" }, urls: { type: "string", default: "40" } },
  });
  const result = await runLoad({ count: Number(values.count), concurrency: Number(values.concurrency), urls: Number(values.urls) });
  for (const e of result.errorSamples) console.error(e);
  console.log(loadSummary(result, Number(values.concurrency)));
  process.exit(result.errors === 0 && result.probesOverOne === 0 ? 0 : 1);
}
