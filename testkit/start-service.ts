import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";

const root = join(import.meta.dirname, "..");

/**
 * A port free now, for a process to listen on later. Drawn below the kernel's ephemeral range, as freePortRun's are:
 * a port the kernel hands out (listening on port 0) is handed out again to outgoing connections, and wrangler
 * found its port taken once (EADDRINUSE) while other files' services were busy.
 */
export async function freePort(): Promise<number> {
  return freePortRun(1);
}

/** Whether `port` on 127.0.0.1 can be listened on right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * The first of `count` consecutive free ports (start.mjs gives RUNNER_INSTANCES runners consecutive ports), drawn
 * below Linux's ephemeral range (32768-60999): a port next to one the kernel handed out is itself handed out to
 * outgoing connections, and a runner found it taken (EADDRINUSE) while other files' services were busy.
 */
export async function freePortRun(count: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const first = 20_000 + Math.floor(Math.random() * (12_000 - count));
    let free = true;
    for (let i = 0; i < count && free; i++) free = await canListen(first + i);
    if (free && claimPorts(first, count)) return first;
  }
  throw new Error(`no ${count} consecutive free ports between 20000 and 32000`);
}

/** Where test processes claim the ports they were given (one empty file per port). */
const portClaims = join(tmpdir(), "media-inspect-test-ports");
/** A claim older than this is void: longer than any test file holds a port before listening on it. */
const portClaimMs = 15 * 60_000;

/**
 * Claims `count` ports from `first` for this run of the suite, so no other test process is handed them: a port is
 * free when drawn, but whoever it is for listens on it seconds later (a service after its start-up, a receiver at the
 * end of its file), and two draws among the suite's processes did meet in that window (EADDRINUSE). A claim is a file
 * created exclusively; claims of an earlier run expire.
 */
function claimPorts(first: number, count: number): boolean {
  mkdirSync(portClaims, { recursive: true });
  const claimed: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = join(portClaims, String(first + i));
    try {
      if (Date.now() - statSync(file).mtimeMs > portClaimMs) rmSync(file, { force: true });
    } catch {
      // Not claimed.
    }
    try {
      closeSync(openSync(file, "wx"));
      claimed.push(file);
    } catch {
      for (const mine of claimed) rmSync(mine, { force: true });
      return false;
    }
  }
  return true;
}

export interface StartedService {
  /** http://127.0.0.1:PORT */
  base: string;
  /** The URLs of the readiness line. */
  urls: { api: string; docs: string; playground: string };
  port: number;
  runnerPort: number;
  /** The process started: `npm` (via: "npm") or `node scripts/start.mjs`. */
  child: ChildProcess;
  /** Every output line so far (stdout and stderr). */
  lines: string[];
  /** Output lines that are JSON objects, parsed. */
  jsonLines(): Record<string, any>[];
  /** Waits until a line matches (or fails after timeoutMs). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends the signal (default SIGTERM) and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  /** Worker and runner settings over this process's environment; `undefined` removes one (e.g. INSPECT_RATE_LIMIT). */
  env?: Record<string, string | undefined>;
  /** "npm" runs `npm start` (what a user types); "node" runs the script directly. Default "node". */
  via?: "npm" | "node";
  readyTimeoutMs?: number;
  /**
   * After the readiness line, wait until this many POSTs in a row get the API's own answer (default 0: no wait).
   * A POST caught by a reload of wrangler dev gets the dev proxy's 503. wrangler.toml has no [build] command any more,
   * which made wrangler dev reload once just after "Ready on"; suites that count every answer (load, faults, soak)
   * still wait for the Worker to answer before they count.
   */
  settlePosts?: number;
  /** Output lines kept, the oldest dropped first (a soak logs a lot). Default: all. */
  maxLines?: number;
  /**
   * The service's local data (LOCAL_STATE_DIR): default a fresh directory of its own, removed when it stops, since
   * services of files running at once must not share Durable Object storage. Give one to keep data across a restart.
   */
  stateDir?: string;
}

/** A fresh directory for one service's local data (LOCAL_STATE_DIR). */
export function freshStateDir(): string {
  return mkdtempSync(join(tmpdir(), "media-inspect-state-"));
}

/** The longest the settling POSTs may take in all. */
const settleTimeoutMs = 30_000;

const readyLine = /^\[start\] ready: API (\S+)\s+docs (\S+)\s+playground (\S+)/;

/**
 * Starts the real `npm start` (scripts/start.mjs: wrangler dev + media runner) on free ports, waits for its
 * readiness line and returns the URLs it printed. Runs inside the loopback-only namespace of the tests. Services of
 * files running at once start side by side: each has its own ports (wrangler's devtools port too) and local data.
 */
export async function startService(options: StartOptions = {}): Promise<StartedService> {
  const port = await freePort();
  const runnerPort = await freePortRun(Math.max(1, Number(options.env?.RUNNER_INSTANCES ?? 1) || 1));
  const stateDir = options.stateDir ?? freshStateDir();
  const env: Record<string, string | undefined> = {
    ...process.env, INSPECT_RATE_LIMIT: "0", PORT: String(port), RUNNER_PORT: String(runnerPort),
    LOCAL_STATE_DIR: stateDir, INSPECTOR_PORT: String(await freePort()), ...options.env,
  };
  const ownState = options.stateDir === undefined;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const child =
    options.via === "npm"
      ? spawn("npm", ["start", "--silent"], { cwd: root, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] })
      : spawn(process.execPath, [join(root, "scripts", "start.mjs")], { cwd: root, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  const waiters = new Set<{ pattern: RegExp; resolve: (line: string) => void }>();
  const maxLines = options.maxLines ?? Infinity;
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => {
      lines.push(line);
      if (lines.length > maxLines) lines.splice(0, lines.length - maxLines);
      for (const w of waiters) {
        if (w.pattern.test(line)) {
          waiters.delete(w);
          w.resolve(line);
        }
      }
    });
  }
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const removed = exited.then(() => {
    if (ownState) rmSync(stateDir, { recursive: true, force: true });
  });

  const waitForLine = (pattern: RegExp, timeoutMs = 30_000) => {
    const seen = lines.find((l) => pattern.test(l));
    if (seen) return Promise.resolve(seen);
    return new Promise<string>((resolve, reject) => {
      const waiter = { pattern, resolve: (l: string) => { clearTimeout(timer); resolve(l); } };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${lines.slice(-40).join("\n")}`));
      }, timeoutMs);
      waiters.add(waiter);
      void exited.then((code) => {
        if (waiters.delete(waiter)) {
          clearTimeout(timer);
          reject(new Error(`npm start exited (${code}) before ${pattern}:\n${lines.slice(-40).join("\n")}`));
        }
      });
    });
  };

  let ready: string;
  try {
    ready = await waitForLine(readyLine, options.readyTimeoutMs ?? 120_000);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  const [, api, docs, playground] = readyLine.exec(ready)!;
  const base = `http://127.0.0.1:${port}`;
  for (let ok = 0, deadline = Date.now() + settleTimeoutMs; ok < (options.settlePosts ?? 0) && Date.now() < deadline;) {
    const status = await fetch(`${base}/api/v1/inspect`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
      .then((r) => r.status, () => 0);
    ok = status === 400 ? ok + 1 : 0;
    await new Promise((r) => setTimeout(r, 300));
  }
  return {
    base,
    urls: { api: api!, docs: docs!, playground: playground! },
    port,
    runnerPort,
    child,
    lines,
    jsonLines: () =>
      lines.flatMap((l) => {
        if (!l.startsWith("{")) return [];
        try {
          return [JSON.parse(l) as Record<string, any>];
        } catch {
          return [];
        }
      }),
    waitForLine,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      // SIGKILL cannot be handed on by the script, so it goes to every process below it too: wrangler and workerd
      // otherwise stayed behind, idle but polling, until the whole test run ended.
      const kill = (sig: NodeJS.Signals) => {
        const tree = sig === "SIGKILL" ? descendants(child.pid!) : [];
        child.kill(sig);
        for (const pid of tree) {
          try {
            process.kill(pid, sig);
          } catch {
            // already gone
          }
        }
      };
      kill(signal);
      const timer = setTimeout(() => kill("SIGKILL"), 30_000);
      const code = await exited;
      clearTimeout(timer);
      await removed;
      return code;
    },
  };
}

/** Starts `npm run samples` (scripts/samples.mjs) on a free port; files go to a gitignored test folder. */
export async function startSamples(port?: number): Promise<{ url: string; port: number; stop(): Promise<void> }> {
  const samplesPort = port ?? (await freePort());
  const child = spawn(process.execPath, [join(root, "scripts", "samples.mjs")], {
    cwd: root,
    env: { ...process.env, SAMPLES_PORT: String(samplesPort), SAMPLES_DIR: join(root, "test", ".fixtures", "samples") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stderr!.on("data", (d) => output.push(String(d)));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      output.push(line);
      if (line.startsWith("samples on")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`samples exited (${code}): ${output.join("\n")}`)));
  });
  return {
    url: `http://127.0.0.1:${samplesPort}`,
    port: samplesPort,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

/** Every process's command line (what `ps` shows any local user), by pid. */
export function allCommandLines(): Map<number, string> {
  const out = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      out.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" "));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** Every live process below `pid` (from /proc/<pid>/stat) with its command line: wrangler, workerd and the runner under npm. */
export function processesBelow(pid: number): { pid: number; cmd: string }[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name (which may contain spaces) start after the last ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ppid = Number(fields[1]);
      if (fields[0] === "Z") continue;
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const out: { pid: number; cmd: string }[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      try {
        out.push({ pid: c, cmd: readFileSync(`/proc/${c}/cmdline`, "utf8").split("\0").join(" ") });
      } catch {
        continue; // Gone meanwhile.
      }
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** Pids of every live descendant of `pid`. */
export function descendants(pid: number): number[] {
  return processesBelow(pid).map((p) => p.pid);
}

/** True while the process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
