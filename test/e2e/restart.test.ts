/**
 * Work in flight survives restarts (issue 14): the real `node scripts/start.mjs` with the media runner as its
 * own process, an origin that answers the runner slowly so a job is reliably mid-flight, then
 *  1. the Worker is stopped with SIGTERM while the runner call is under way and started again on the same
 *     local state (its own LOCAL_STATE_DIR): with no new inspect call, the object's watchdog alarm re-dispatches the work and
 *     the job completes within the documented bound;
 *  2. the runner is killed with SIGKILL mid-job and started again: the job completes within the bound;
 *  3. a webhook delivery whose retry falls due while the Worker is down is sent after the start.
 * Only GET /api/v1/job/{id} is called after the restart (what a waiting client does).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureMediaFixtures } from "../../testkit/media-fixtures.ts";
import { compiledRunner } from "../../testkit/runner-process.ts";
import { freePort, freshStateDir } from "../../testkit/start-service.ts";
import { startSlowRunnerOrigin } from "../../testkit/slow-runner-origin.ts";
import { waitFor } from "../../testkit/wait-for.ts";

const root = join(import.meta.dirname, "..", "..");
const token = "restart-test-token-0123456789";
/** Each runner request to the origin waits this long: the runner job takes several seconds. */
const runnerDelayMs = 1_500;
/** Documented bound (docs/performance.md): watchdog interval (2 s) + one runner job + start-up slack. */
const recoveryBoundMs = 30_000;

/** The slow origin, with this suite's URL: a query makes each job a new resource. */
async function slowForRunnerOrigin(file: string) {
  const origin = await startSlowRunnerOrigin(file, runnerDelayMs);
  return { ...origin, url: (q: string) => `${origin.base}/video-moov-end.mp4?${q}` };
}

interface Proc {
  child: ChildProcess;
  log: string[];
  stop(signal: NodeJS.Signals): Promise<void>;
}

function track(child: ChildProcess): Proc {
  const log: string[] = [];
  for (const s of [child.stdout!, child.stderr!]) createInterface({ input: s }).on("line", (l) => log.push(l));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  return {
    child,
    log,
    async stop(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    },
  };
}

async function startRunner(port: number, originPort: number): Promise<Proc> {
  const proc = track(spawn(process.execPath, [await compiledRunner(), "--exit-on-stdin-close"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", RUNNER_PORT: String(port), RUNNER_HOST: "127.0.0.1", RUNNER_TOKEN: token, SSRF_ALLOWLIST: `127.0.0.1:${originPort}` },
    stdio: ["pipe", "pipe", "pipe"],
  }));
  await waitFor(() => {
    if (proc.child.exitCode !== null) throw new Error(`runner exited:\n${proc.log.join("\n")}`);
    return proc.log.some((l) => /listening/i.test(l));
  }, { timeoutMs: 60_000, what: "the runner listening" }).catch((error: Error) => {
    throw new Error(`runner did not start (${error.message}):\n${proc.log.join("\n")}`);
  });
  return proc;
}

const webhookSecret = `whsec_${Buffer.from("restart-test-webhook-secret-32by").toString("base64")}`;

/** A webhook receiver that fails its first delivery (so a retry is due later) and accepts the others. */
async function flakyReceiver() {
  const deliveries: { at: number; status: number; id: string }[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const status = deliveries.length === 0 ? 500 : 200;
      deliveries.push({ at: Date.now(), status, id: String(req.headers["webhook-id"] ?? "") });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    port, url: `http://127.0.0.1:${port}/hook`, deliveries,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

let receiverPort = 0;
/** The Worker's local data, kept across its restarts here (and shared by no other service). */
const stateDir = freshStateDir();

async function startWorker(port: number, runnerPort: number, originPort: number): Promise<Proc> {
  const proc = track(spawn(process.execPath, [join(root, "scripts", "start.mjs")], {
    cwd: root,
    env: {
      ...process.env, LOCAL_STATE_DIR: stateDir, INSPECT_RATE_LIMIT: "0", PORT: String(port), START_RUNNER: "false", RUNNER_URL: `http://127.0.0.1:${runnerPort}`, RUNNER_TOKEN: token,
      SSRF_ALLOWLIST: `127.0.0.1:${originPort},127.0.0.1:${receiverPort}`, WEBHOOK_SECRET: webhookSecret,
      // The failed first delivery's retry falls due 4 s later: after the stop, before or during the start.
      WEBHOOK_RETRY_BASE_MS: "4000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  }));
  await waitFor(() => {
    if (proc.child.exitCode !== null) throw new Error("exited");
    return fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
  }, { timeoutMs: 90_000, intervalMs: 200, what: "the Worker's /health" }).catch((error: Error) => {
    throw new Error(`worker did not start (${error.message}):\n${proc.log.join("\n")}`);
  });
  return proc;
}

describe("work in flight survives restarts (real npm start)", () => {
  let origin: Awaited<ReturnType<typeof slowForRunnerOrigin>>;
  let receiver: Awaited<ReturnType<typeof flakyReceiver>>;
  let runner: Proc | undefined;
  let worker: Proc | undefined;
  let port: number;
  let runnerPort: number;
  const base = () => `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    const media = ensureMediaFixtures(join(root, "test", ".fixtures", "media"));
    origin = await slowForRunnerOrigin(join(media, "video-moov-end.mp4"));
    receiver = await flakyReceiver();
    receiverPort = receiver.port;
    port = await freePort();
    runnerPort = await freePort();
    runner = await startRunner(runnerPort, origin.port);
    worker = await startWorker(port, runnerPort, origin.port);
  }, 150_000);

  afterAll(async () => {
    await worker?.stop("SIGTERM");
    await runner?.stop("SIGTERM");
    await origin?.close();
    await receiver?.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  const startJob = async (q: string, webhookUrl?: string) => {
    const res = await fetch(`${base()}/api/v1/inspect?profile=standard`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: origin.url(q), ...(webhookUrl ? { webhookUrl } : {}) }),
    });
    const body = (await res.json()) as { job?: { id: string } };
    expect(res.status, JSON.stringify(body)).toBe(202);
    return body.job!.id;
  };
  const jobStatus = async (id: string) => {
    const res = await fetch(`${base()}/api/v1/job/${id}`);
    return ((await res.json()) as { job?: { status: string } }).job?.status;
  };

  it("a Worker stopped with SIGTERM mid-job and started again completes the job with no new inspect call", async () => {
    const id = await startJob(`worker-restart-${Date.now()}`);
    const runnerCallsBefore = origin.seen.runner;
    await waitFor(() => origin.seen.runner > runnerCallsBefore, { timeoutMs: 20_000, what: "the runner to start reading" });
    expect(await jobStatus(id)).toBe("active");
    await worker!.stop("SIGTERM");
    expect(worker!.child.exitCode !== null || worker!.child.signalCode !== null).toBe(true);
    const runnerCallsAtStop = origin.seen.runner;
    worker = await startWorker(port, runnerPort, origin.port);
    const restarted = Date.now();
    // No request at all for a while: only the object's own alarm can re-dispatch the work.
    await waitFor(() => origin.seen.runner > runnerCallsAtStop + 1, { timeoutMs: recoveryBoundMs, what: "the work to be re-dispatched by the alarm" });
    await waitFor(async () => (await jobStatus(id)) === "completed", { timeoutMs: recoveryBoundMs, intervalMs: 100, what: "the job to complete" });
    expect(Date.now() - restarted).toBeLessThan(recoveryBoundMs);
  }, 180_000);

  it("a runner killed with SIGKILL mid-job and started again completes the job", async () => {
    const id = await startJob(`runner-kill-${Date.now()}`);
    const before = origin.seen.runner;
    await waitFor(() => origin.seen.runner > before, { timeoutMs: 20_000, what: "the runner to start reading" });
    await runner!.stop("SIGKILL");
    const killed = Date.now();
    await new Promise((r) => setTimeout(r, 2_000));
    runner = await startRunner(runnerPort, origin.port);
    await waitFor(async () => (await jobStatus(id)) === "completed", { timeoutMs: recoveryBoundMs, intervalMs: 100, what: "the job to complete" });
    expect(Date.now() - killed).toBeLessThan(recoveryBoundMs);
  }, 180_000);

  it("a webhook retry due while the Worker is down is delivered after the start", async () => {
    const id = await startJob(`webhook-restart-${Date.now()}`, receiver.url);
    // The first delivery fails (500): its retry is due about a second later, while the Worker is stopped.
    await waitFor(() => receiver.deliveries.length >= 1, { timeoutMs: recoveryBoundMs, what: "the first webhook delivery" });
    await worker!.stop("SIGTERM");
    expect(receiver.deliveries.length).toBe(1);
    await new Promise((r) => setTimeout(r, 3_000));
    worker = await startWorker(port, runnerPort, origin.port);
    const restarted = Date.now();
    await waitFor(() => receiver.deliveries.some((d) => d.status === 200), { timeoutMs: recoveryBoundMs, what: "the retried webhook delivery" });
    expect(Date.now() - restarted).toBeLessThan(recoveryBoundMs);
    // One event: the retry carries the same webhook-id, and nothing is delivered twice.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(receiver.deliveries.filter((d) => d.status === 200)).toHaveLength(1);
    expect(new Set(receiver.deliveries.map((d) => d.id)).size).toBe(1);
    expect(await jobStatus(id)).toBe("completed");
  }, 180_000);
});
