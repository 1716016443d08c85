/**
 * Runner choice (worker/runner/runner-pool.ts): keys spread evenly and stably over the runners, a runner that
 * failed goes last, and a job whose first-ranked runner is unreachable is answered by the next one.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getConfig } from "../../../worker/config/config.ts";
import { markUnhealthy, rankTargets, sendToRunners } from "../../../worker/runner/runner-pool.ts";
import { runnerHealthPath } from "../../../shared/shapes/runner.ts";

const targets = ["a", "b", "c", "d"].map((id) => ({ id: `http://runner-${id}:8788` }));

describe("runner choice", () => {
  it("spreads 2,000 keys evenly over 4 runners, the same runner for the same key", () => {
    const firsts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++) {
      const first = rankTargets(targets, `resource-${i}`)[0]!.id;
      expect(rankTargets(targets, `resource-${i}`)[0]!.id).toBe(first);
      firsts.set(first, (firsts.get(first) ?? 0) + 1);
    }
    expect(firsts.size).toBe(4);
    for (const count of firsts.values()) expect(count).toBeGreaterThan(350);
  });

  it("ranks a runner that just failed last, keeping the others' order", () => {
    const local = ["w", "x", "y", "z"].map((id) => ({ id: `http://pool-${id}:1` }));
    const before = rankTargets(local, "key-1").map((t) => t.id);
    markUnhealthy(before[0]!, getConfig({ RUNNER_RETRY_AFTER_MS: "60000" }));
    expect(rankTargets(local, "key-1").map((t) => t.id)).toEqual([...before.slice(1), before[0]]);
  });

  it("fails over to the next runner when the first-ranked one is unreachable", async () => {
    const runnerUrl = (env as unknown as { RUNNER_URL: string }).RUNNER_URL;
    // Port 9 (discard) has no listener on loopback: connection refused.
    const config = getConfig({ RUNNER_URLS: `http://127.0.0.1:9,${runnerUrl}`, RUNNER_RETRY_AFTER_MS: "60000" });
    const deadTarget = [{ id: "http://127.0.0.1:9" }, { id: runnerUrl }];
    // A key that ranks the dead runner first.
    let key = "";
    for (let i = 0; !key; i++) if (rankTargets(deadTarget, `k${i}`)[0]!.id === "http://127.0.0.1:9") key = `k${i}`;
    const res = await sendToRunners(env as unknown as Env, config, key, runnerHealthPath, { signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(200);
    // The dead runner is now skipped: the same key goes straight to the live one.
    expect(rankTargets(deadTarget, key)[0]!.id).toBe(runnerUrl);
  });
});
