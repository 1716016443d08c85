/**
 * Several runners (issue 26 item 3): `npm start` with RUNNER_INSTANCES=2 starts two media runners and the Worker
 * spreads jobs over both by resource key (worker/runner/runner-pool.ts); when one is killed with SIGKILL in the
 * middle of jobs, every inspection still completes (the Worker fails over to the other runner) and start.mjs
 * starts the dead one again.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureMediaFixtures } from "../../testkit/media-fixtures.ts";
import { startService, type StartedService } from "../../testkit/start-service.ts";
import { startSlowRunnerOrigin } from "../../testkit/slow-runner-origin.ts";
import { waitFor } from "../../testkit/wait-for.ts";
import { rendezvousOrder } from "../../worker/runner/rendezvous.ts";

const root = join(import.meta.dirname, "..", "..");
/** Runner reads are answered this late, so jobs are reliably in flight when a runner is killed. */
const runnerDelayMs = 600;

/** One MP4 under many paths (each a new resource key); the runner's reads are delayed and counted. */
async function videoOrigin(file: string) {
  const origin = await startSlowRunnerOrigin(file, runnerDelayMs);
  return { ...origin, url: (name: string) => `${origin.base}/clips/${name}/video-moov-end.mp4` };
}

/** pid of each runner process, from its own `media-runner listening on ... (pid P; ...)` line (the latest start of each). */
function runnerPids(lines: string[]): Map<string, number> {
  const pids = new Map<string, number>();
  for (const line of lines) {
    const m = /^\[(runner-\d)\] media-runner listening on \S+ \(pid (\d+);/.exec(line);
    if (m) pids.set(m[1]!, Number(m[2]));
  }
  return pids;
}

/** pids of the runners that logged a finished job, with the count of each. */
function jobsByPid(lines: string[]): Map<number, number> {
  const jobs = new Map<number, number>();
  for (const line of lines) {
    if (!line.startsWith("{") || !line.includes('"job"')) continue;
    const entry = JSON.parse(line) as { pid?: number; job?: { outcome?: string } };
    if (entry.pid !== undefined && entry.job?.outcome === "ok") jobs.set(entry.pid, (jobs.get(entry.pid) ?? 0) + 1);
  }
  return jobs;
}

describe("two runners under npm start (RUNNER_INSTANCES=2)", () => {
  let origin: Awaited<ReturnType<typeof videoOrigin>>;
  let service: StartedService;

  beforeAll(async () => {
    const media = ensureMediaFixtures(join(root, "test", ".fixtures", "media"));
    origin = await videoOrigin(join(media, "video-moov-end.mp4"));
    // Eight full inspections of one origin queue behind its per-origin share in each runner: on a loaded CI
    // machine they need more than the default 25 s of full waiting. What is tested is where jobs go, not latency.
    service = await startService({ env: { RUNNER_INSTANCES: "2", SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, FULL_WAIT_TIMEOUT_MS: "90000" } });
  }, 150_000);
  afterAll(async () => {
    await service?.stop();
    await origin?.close();
  });

  const serviceErrors = () => service.lines.filter((line) => line.includes('"level":"error"') || line.includes("Error")).slice(-30).join("\n");

  const inspectFull = async (name: string) => {
    const res = await fetch(`${service.base}/api/v1/inspect?profile=full`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: origin.url(name) }),
    });
    const body = (await res.json()) as { data?: { preview?: { thumbnail?: { url?: string } } }; processing?: { status?: string } };
    return { status: res.status, body };
  };

  /**
   * Clip names whose resource keys (SHA-256 of the URL, worker/record/target-url.ts) rank each runner first, four
   * per runner: the origin's port is random, so names picked blindly could all rank one runner.
   */
  const namesRankingEachRunnerFirst = (perRunner: number) => {
    const ids = [0, 1].map((i) => `http://127.0.0.1:${service.runnerPort + i}`);
    const chosen = new Map<string, string[]>(ids.map((id) => [id, []]));
    for (let i = 0; i < 1_000 && [...chosen.values()].some((names) => names.length < perRunner); i++) {
      const name = `spread-${i}`;
      const key = createHash("sha256").update(new URL(origin.url(name)).href).digest("hex");
      const names = chosen.get(rendezvousOrder(ids, key)[0]!)!;
      if (names.length < perRunner) names.push(name);
    }
    return [...chosen.values()].flat();
  };

  it("spreads jobs over both runners by resource key", async () => {
    const pids = runnerPids(service.lines);
    expect(pids.size).toBe(2);
    const names = namesRankingEachRunnerFirst(4);
    expect(names).toHaveLength(8);
    const answers = await Promise.all(names.map((name) => inspectFull(name)));
    for (const a of answers) {
      // A failed answer names the service's error lines with it (they are kept only in this test's process).
      expect(a.status, `${JSON.stringify(a.body)}\n${a.status === 200 ? "" : serviceErrors()}`).toBe(200);
      expect(a.body.data?.preview?.thumbnail?.url).toBeTruthy();
    }
    const jobs = jobsByPid(service.lines);
    for (const pid of pids.values()) expect(jobs.get(pid) ?? 0, `jobs per runner pid: ${JSON.stringify([...jobs])}`).toBeGreaterThan(0);
  });

  it("loses no inspection when one runner is killed mid-job, and the dead runner is started again", async () => {
    const before = runnerPids(service.lines);
    const victim = before.get("runner-1")!;
    const readsBefore = origin.seen.runner;
    const pending = Promise.all(Array.from({ length: 6 }, (_, i) => inspectFull(`kill-${Date.now()}-${i}`)));
    // Kill runner-1 once the runners are reading (jobs in flight).
    await waitFor(() => origin.seen.runner >= readsBefore + 2, { timeoutMs: 30_000, what: "the runners reading" }).catch(() => undefined);
    process.kill(victim, "SIGKILL");
    const answers = await pending;
    for (const a of answers) {
      // A failed answer names the service's error lines with it (they are kept only in this test's process).
      expect(a.status, `${JSON.stringify(a.body)}\n${a.status === 200 ? "" : serviceErrors()}`).toBe(200);
      expect(a.body.data?.preview?.thumbnail?.url, JSON.stringify(a.body)).toBeTruthy();
    }
    await waitFor(() => runnerPids(service.lines).get("runner-1") !== victim, { timeoutMs: 30_000, what: "runner-1 restarted" }).catch(() => undefined);
    expect(runnerPids(service.lines).get("runner-1")).not.toBe(victim);
  });
});
