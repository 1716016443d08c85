/**
 * The real `npm start` (testkit/start-service.ts) for the reliability suites and bench scripts, waiting out
 * wrangler dev's reload after start-up, with the processes' resident memory read from /proc. Run everything
 * inside a loopback-only namespace (see docs/reliability.md).
 */
import { readFileSync } from "node:fs";
import { processesBelow, startService as startNpmStart } from "../start-service.ts";

export { freePort } from "../start-service.ts";

/** Start-up settling: POSTs in a row that must get the API's answer. */
const SETTLE_POSTS = 20;
/** Output lines kept: a soak logs a lot. */
const MAX_LOG_LINES = 2_000;

export interface Service {
  base: string;
  logs: string[];
  /** Resident memory in MiB of workerd and the media runner (VmRSS from /proc). */
  rss(): { workerd: number; runner: number };
  stop(): Promise<number | null>;
}

function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Math.round(Number(match[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

export async function startService(env: Record<string, string>, readyTimeoutMs = 120_000): Promise<Service> {
  const service = await startNpmStart({ env, readyTimeoutMs, settlePosts: SETTLE_POSTS, maxLines: MAX_LOG_LINES });
  const find = (test: (cmd: string) => boolean) => processesBelow(service.child.pid!).filter((p) => test(p.cmd)).map((p) => p.pid);
  return {
    base: service.base,
    logs: service.lines,
    rss() {
      const workerd = find((c) => /workerd\S* serve/.test(c)).reduce((n, p) => n + rssMiB(p), 0);
      const runner = find((c) => c.includes("media-runner/.build/")).reduce((n, p) => n + rssMiB(p), 0);
      return { workerd, runner };
    },
    stop: () => service.stop(),
  };
}

/**
 * The dev proxy of `wrangler dev` answers a POST that was in flight while it reloaded the Worker with this 503
 * ("Please try sending the request again"); GETs it retries itself. That is the dev server, not the service:
 * the suites resend such a request once and count it (devReloads) rather than count it as the service's error.
 */
export const devReloadText = "Your worker restarted mid-request";
export const devReloads = { count: 0 };

/**
 * POST /api/v1/inspect with a time limit; never throws (status 0 = no answer in time or connection error).
 * `caller`: the client address the request claims (CF-Connecting-IP, which Cloudflare's edge sets; the local
 * server believes it only when started with CLIENT_IP_SOURCE=cloudflare), so a suite can play several callers.
 */
export async function inspect(base: string, url: string, query = "", timeoutMs = 60_000, caller?: string): Promise<{ status: number; ms: number; body: any }> {
  const first = await inspectOnce(base, url, query, timeoutMs, caller);
  if (first.status !== 503 || !String(first.body).startsWith(devReloadText)) return first;
  devReloads.count += 1;
  return inspectOnce(base, url, query, timeoutMs, caller);
}

async function inspectOnce(base: string, url: string, query: string, timeoutMs: number, caller?: string): Promise<{ status: number; ms: number; body: any }> {
  const started = performance.now();
  try {
    const res = await fetch(`${base}/api/v1/inspect${query ? `?${query}` : ""}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(caller ? { "cf-connecting-ip": caller } : {}) },
      body: JSON.stringify({ url }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, ms: performance.now() - started, body };
  } catch (err) {
    return { status: 0, ms: performance.now() - started, body: String(err) };
  }
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` at once. */
export async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}
