/**
 * The real `npm start` (node scripts/start.mjs: wrangler dev + media runner) for the reliability suites and
 * bench scripts: started on free loopback ports, with the processes' resident memory read from /proc, and
 * stopped with SIGTERM (bounded). Run everything inside a loopback-only namespace (see docs/reliability.md).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";

const root = join(import.meta.dirname, "..", "..", "..");
/** Start-up settling: POSTs in a row that must get the API's answer, and the longest wait for them. */
const SETTLE_POSTS = 20;
const SETTLE_TIMEOUT_MS = 30_000;

export async function freePort(host = "127.0.0.1"): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

export interface Service {
  base: string;
  logs: string[];
  /** Resident memory in MiB of workerd and the media runner (VmRSS from /proc). */
  rss(): { workerd: number; runner: number };
  stop(): Promise<number | null>;
}

/** Process ids below `pid` (children, grandchildren...) with their command lines. */
function descendants(pid: number): { pid: number; cmd: string }[] {
  const byParent = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      byParent.set(ppid, [...(byParent.get(ppid) ?? []), Number(name)]);
    } catch {
      /* exited meanwhile */
    }
  }
  const out: { pid: number; cmd: string }[] = [];
  const todo = [...(byParent.get(pid) ?? [])];
  while (todo.length > 0) {
    const p = todo.pop()!;
    try {
      out.push({ pid: p, cmd: readFileSync(`/proc/${p}/cmdline`, "utf8").replaceAll("\0", " ") });
    } catch {
      continue;
    }
    todo.push(...(byParent.get(p) ?? []));
  }
  return out;
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
  const port = await freePort();
  const runnerPort = await freePort();
  const logs: string[] = [];
  const child: ChildProcess = spawn(process.execPath, [join(root, "scripts", "start.mjs")], {
    cwd: root,
    env: { ...process.env, INSPECT_RATE_LIMIT: "0", PORT: String(port), RUNNER_PORT: String(runnerPort), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (line: string) => {
    logs.push(line);
    if (logs.length > 2_000) logs.splice(0, 1_000); // bounded: a soak logs a lot
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service not ready:\n${logs.join("\n")}`)), readyTimeoutMs);
    let worker = false;
    let runner = false;
    createInterface({ input: child.stdout! }).on("line", (line) => {
      keep(line);
      if (line.includes("Ready on")) worker = true;
      if (line.includes("media-runner listening")) runner = true;
      if (worker && runner) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on("data", (d) => keep(String(d)));
    child.once("exit", (code) => reject(new Error(`start exited (${code}):\n${logs.join("\n")}`)));
  });
  // wrangler dev reloads the Worker shortly after "Ready on" (its custom build runs again); a POST caught by the
  // reload gets the dev proxy's 503 "restarted mid-request" (GETs are retried by the proxy, so probe with a
  // POST). Wait until several POSTs in a row get the API's own answer.
  const base = `http://127.0.0.1:${port}`;
  for (let ok = 0, deadline = Date.now() + SETTLE_TIMEOUT_MS; ok < SETTLE_POSTS && Date.now() < deadline; ) {
    const status = await fetch(`${base}/api/v1/inspect`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
      .then((r) => r.status, () => 0);
    ok = status === 400 ? ok + 1 : 0;
    await new Promise((r) => setTimeout(r, 300));
  }
  const find = (test: (cmd: string) => boolean) => descendants(child.pid!).filter((p) => test(p.cmd)).map((p) => p.pid);
  return {
    base,
    logs,
    rss() {
      const workerd = find((c) => /workerd\S* serve/.test(c)).reduce((n, p) => n + rssMiB(p), 0);
      const runner = find((c) => c.includes("media-runner/src/server.ts") && !c.includes("tsx/dist/cli")).reduce((n, p) => n + rssMiB(p), 0);
      return { workerd, runner };
    },
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      child.kill("SIGTERM");
      const force = setTimeout(() => child.kill("SIGKILL"), 20_000);
      const code = await exited;
      clearTimeout(force);
      return code;
    },
  };
}

/**
 * The dev proxy of `wrangler dev` answers a POST that was in flight while it reloaded the Worker with this 503
 * ("Please try sending the request again"); GETs it retries itself. That is the dev server, not the service:
 * the suites resend such a request once and count it (devReloads) rather than count it as the service's error.
 */
export const devReloadText = "Your worker restarted mid-request";
export const devReloads = { count: 0 };

/** POST /api/v1/inspect with a time limit; never throws (status 0 = no answer in time or connection error). */
export async function inspect(base: string, url: string, query = "", timeoutMs = 60_000): Promise<{ status: number; ms: number; body: any }> {
  const first = await inspectOnce(base, url, query, timeoutMs);
  if (first.status !== 503 || !String(first.body).startsWith(devReloadText)) return first;
  devReloads.count += 1;
  return inspectOnce(base, url, query, timeoutMs);
}

async function inspectOnce(base: string, url: string, query: string, timeoutMs: number): Promise<{ status: number; ms: number; body: any }> {
  const started = performance.now();
  try {
    const res = await fetch(`${base}/api/v1/inspect${query ? `?${query}` : ""}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
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
