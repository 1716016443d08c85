// Bounded work under hostile inputs, Worker side: which runner failures are retried, with what. A failure the
// same bytes would repeat is never retried (one runner job); a job that ran past its time is retried once, with
// the caller's key and only what its inspection has left of the engine-time budget (the first job's engine time
// is charged even though it failed); and a 0.9 MB FLAC declaring ten hours of 8 channels costs one short job.
import { describe, expect, it } from "vitest";
import { getConfig } from "../../../worker/config/config.ts";
import { decideRetry, processingTimeoutAttempts } from "../../../worker/dispatch/retry-policy.ts";
import { RunnerError } from "../../../worker/runner/runner-client.ts";
import { inspectionEngineSecondsBudget } from "../../../shared/limits.ts";
import { firstSeen, pollJob, runnerBudgets, runnerCalls, runnerClients } from "../../../testkit/worker/jobs.ts";
import { inspect, media } from "../../../testkit/worker/helpers.ts";
import { env, runInDurableObject } from "cloudflare:test";
import { DispatchLedger } from "../../../worker/dispatch/dispatch-ledger.ts";
import { runnerWorkSettled } from "../../../testkit/worker/object-state.ts";
import { waitFor } from "../../../testkit/wait-for.ts";

const budgetMs = inspectionEngineSecondsBudget * 1000;

describe("the retry policy", () => {
  const config = getConfig(env);
  it.each(["CORRUPT_MEDIA", "IMAGE_TOO_LARGE", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA", "UPSTREAM_TIMEOUT", "RESOURCE_NOT_FOUND"])(
    "never retries %s (the same bytes give the same answer)", (code) => {
      expect(decideRetry(new RunnerError(code, "x", false), 1, config).kind).toBe("fail");
    });

  it("retries a job that ran past its time once, then gives up", () => {
    const timeout = new RunnerError("PROCESSING_TIMEOUT", "x", false);
    expect(decideRetry(timeout, 1, config).kind).toBe("retry");
    expect(decideRetry(timeout, processingTimeoutAttempts, config).kind).toBe("fail");
  });

  it("still retries a runner that could not be reached", () => {
    expect(decideRetry(new RunnerError("RUNNER_UNREACHABLE", "x", false), 1, config).kind).toBe("retry");
  });
});

/** Runner calls for `url` once its runner work has ended for good (no retry queued, no stage pending). */
async function settledCalls(url: string): Promise<number> {
  await waitFor(() => runnerWorkSettled(url), { timeoutMs: 30_000, intervalMs: 100, what: `the runner work for ${url} to settle` });
  return runnerCalls(url);
}

describe("runner jobs per inspection under hostile inputs", { timeout: 90_000 }, () => {
  it("a 10-hour 8-channel FLAC: one job, the waveform refused with the spec's code, engine time charged to the caller", async () => {
    const url = media("ten-hours-8ch.flac");
    const res = await inspect(url, "profile=full&expand=waveform&debug=true", { headers: { "cf-connecting-ip": "198.51.100.31" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.processing.pendingStages).toEqual([]);
    expect(res.body.processing.failedStages).toContain("preview:waveform");
    const error = res.body.data.diagnostics.stageErrors.find((e: { stage: string }) => e.stage === "preview:waveform");
    expect(error.reason).toMatch(/^PAYLOAD_TOO_LARGE: .*waveformMaxDecodedSamples/);
    expect(res.body.data.metadata.audio.duration.seconds).toBeGreaterThan(35_999);
    expect(await settledCalls(url)).toBe(1);
    const [client] = await firstSeen(() => runnerClients(url));
    expect(client).toMatch(/^[0-9a-f]{24}$/);
    expect(res.body.data.diagnostics.engineMs).toBeGreaterThan(0);
    expect(res.body.data.diagnostics.engineMs).toBeLessThan(budgetMs);
  });

  it("a job that ran past its time: retried once, with the caller's key and only the engine time left", async () => {
    const spent = 15_000;
    const url = media("video.mp4", `runner=timeout-${spent}`);
    const res = await inspect(url, "profile=standard", { headers: { "cf-connecting-ip": "198.51.100.32" } });
    expect(res.status).toBe(202);
    await pollJob(res.body.job.id, 200, 100);
    expect(await settledCalls(url)).toBe(processingTimeoutAttempts);
    const clients = await runnerClients(url);
    expect(clients).toHaveLength(2);
    expect(clients[0]).toMatch(/^[0-9a-f]{24}$/);
    expect(clients[1]).toBe(clients[0]);
    const budgets = await runnerBudgets(url);
    expect(budgets[0]?.engineMs).toBe(budgetMs);
    expect(budgets[1]?.engineMs).toBe(budgetMs - spent);
    // Both failed jobs are charged to the inspection.
    const after = await inspect(url, "profile=full&debug=true", { headers: { "cf-connecting-ip": "198.51.100.32" } });
    expect(after.body.data.diagnostics.engineMs).toBe(2 * spent);
    expect(after.body.processing.failedStages.length).toBeGreaterThan(0);
  });

  it("a job that spent the whole engine budget before timing out is not retried at all", async () => {
    const url = media("video.mp4", `runner=timeout-${budgetMs}`);
    const res = await inspect(url, "profile=standard", { headers: { "cf-connecting-ip": "198.51.100.33" } });
    expect(res.status).toBe(202);
    const { final } = await pollJob(res.body.job.id, 200, 100);
    expect(await settledCalls(url)).toBe(1);
    expect(JSON.stringify(final)).toContain("inspectionEngineSecondsBudget");
  });
});

describe("the dispatch ledger keeps the caller", () => {
  it("of each row, so a watchdog re-dispatch carries the caller's key; a table made before the column gets it", async () => {
    const resources = (env as unknown as { RESOURCE: DurableObjectNamespace }).RESOURCE;
    await runInDurableObject(resources.get(resources.idFromName(`ledger-test-${crypto.randomUUID()}`)), async (_instance, state) => {
      const sql = state.storage.sql;
      // The table as it was before the caller was kept.
      sql.exec("CREATE TABLE IF NOT EXISTS dispatch (id INTEGER PRIMARY KEY AUTOINCREMENT, stages TEXT NOT NULL, via TEXT NOT NULL, owner TEXT NOT NULL, attempt INTEGER NOT NULL, deadline INTEGER NOT NULL)");
      sql.exec("INSERT INTO dispatch (stages, via, owner, attempt, deadline) VALUES ('[\"preview:thumbnail\"]', 'direct', 'old', 1, 0)");
      const ledger = new DispatchLedger(sql);
      ledger.add({ stages: ["preview:thumbnail"], via: "queue", owner: "me", attempt: 2, deadline: 1, caller: { client: "0123456789abcdef01234567", requestId: "r-1" } });
      const rows = ledger.all();
      expect(rows[0]!.caller).toBeUndefined();
      expect(rows[1]!.caller).toEqual({ client: "0123456789abcdef01234567", requestId: "r-1" });
    });
  });
});
