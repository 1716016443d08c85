/**
 * Graceful shutdown (issue 14 item 3): on SIGTERM the runner stops accepting, lets running jobs finish
 * within RUNNER_SHUTDOWN_GRACE_MS, hands back the rest with 503 + Retry-After (the Worker retries those), and
 * exits 0 within the grace period plus a small margin.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { describe, expect, inject, it } from "vitest";
import { RunnerErrorBody, RunnerHealth, RunnerResponse } from "../../shared/shapes/runner.ts";
import { waitFor } from "../../testkit/wait-for.ts";
import { compiledRunner } from "../../testkit/runner-process.ts";
import { testToken } from "../../testkit/runner/harness.ts";

const runnerDir = new URL("../../media-runner/", import.meta.url).pathname;
const origin = inject("runnerOriginUrl");
const graceMs = 6_000; // room for the finishing job (1.5 s origin + ffprobe) on a loaded CI machine

async function startRunner(): Promise<ChildProcess> {
  return spawn(process.execPath, [await compiledRunner()], {
    cwd: runnerDir,
    env: {
      PATH: process.env.PATH ?? "",
      RUNNER_TOKEN: testToken,
      RUNNER_PORT: "0",
      RUNNER_CONCURRENCY: "2",
      RUNNER_SHUTDOWN_GRACE_MS: String(graceMs),
      // Longer than the grace period, so the stalled job is still running when the grace ends.
      RUNNER_FETCH_TIMEOUT_MS: "30000",
      SSRF_ALLOWLIST: new URL(origin).host,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Resolves with the address line; keeps reading (the pipe must stay open for the shutdown lines). */
function addressLine(child: ChildProcess, lines: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      lines.push(line);
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on("data", (d) => process.stderr.write(`[runner] ${d}`));
    child.once("exit", () => reject(new Error("runner exited without printing its address")));
  });
}

async function health(runner: string) {
  return RunnerHealth.parse(await (await fetch(`${runner}/v1/health`)).json());
}

function job(runner: string, path: string, category: "image" | "video") {
  const started = Date.now();
  return fetch(`${runner}/v1/process`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${testToken}` },
    body: JSON.stringify({ url: `${origin}${path}`, category, stages: ["metadata"] }),
  }).then(async (res) => ({ status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json(), ms: Date.now() - started }));
}

describe("runner graceful shutdown", () => {
  it("finishes a running job, hands back a stalled and a queued one (503 + Retry-After), exits 0 within the bound", async () => {
    const child = await startRunner();
    const lines: string[] = [];
    const runner = await addressLine(child, lines);
    const exited = once(child, "exit");

    // Two slots: one job that finishes 1.5 s in, one that never gets its bytes; a third waits for a slot.
    const finishing = job(runner, "/slow/1500/h264-aac-faststart.mp4", "video");
    const stalled = job(runner, "/stall/long-moov-end.mp4", "video");
    await waitFor(async () => (await health(runner)).active === 2, { what: "both slots busy" });
    const queued = job(runner, "/files/h264-aac-faststart.mp4", "video");
    await waitFor(async () => (await health(runner)).queued === 1, { what: "the third job queued" });

    const signalledAt = Date.now();
    child.kill("SIGTERM");

    const q = await queued;
    expect(q.status).toBe(503);
    expect(Number(q.retryAfter)).toBeGreaterThan(0);
    expect(RunnerErrorBody.parse(q.body).error.code).toBe("RUNNER_BUSY");
    expect(Date.now() - signalledAt).toBeLessThan(1_000); // handed back at once, not after the grace

    const f = await finishing;
    expect(f.status).toBe(200);
    expect(RunnerResponse.safeParse(f.body).success).toBe(true);

    const s = await stalled;
    expect(s.status).toBe(503);
    expect(s.retryAfter).not.toBeNull();
    expect(RunnerErrorBody.parse(s.body).error.message).toMatch(/shutting down/);
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(graceMs - 100);

    // No new work is accepted while draining or after.
    const late = await job(runner, "/files/h264-aac-faststart.mp4", "video").catch(() => ({ status: 0 }));
    expect([0, 503]).toContain(late.status);

    const [code] = await exited;
    expect(code).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(graceMs + 3_000);
    expect(lines.join("\n")).toMatch(/stopping \(SIGTERM\): 3 job\(s\) in flight/);
  });

  it("with nothing in flight, SIGTERM exits 0 at once", async () => {
    const child = await startRunner();
    await addressLine(child);
    const at = Date.now();
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    expect(Date.now() - at).toBeLessThan(1_500);
  });
});
