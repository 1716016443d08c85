// Issue 20 items 7 and 8: one origin's jobs cannot hold every runner slot or the whole queue. Unit cases drive
// FairScheduler with jobs the test releases by hand (start order is the property, not timing); the last case
// runs the real app: jobs whose origin stalls do not delay another origin's job until their deadlines.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { inject } from "vitest";
import { FairScheduler, type FairOptions } from "../../media-runner/src/scheduling/fair-scheduler.ts";
import { isRunnerError } from "../../media-runner/src/errors.ts";
import { lentEngineNice } from "../../media-runner/src/media/engine-priority.ts";
import { runProcess } from "../../media-runner/src/media/run-process.ts";
import { processRequest, testApp } from "../../testkit/runner/harness.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { waitFor } from "../../testkit/wait-for.ts";

// Cases that test the order of starts, lending or queue shares turn preemption off (preemptFlowJobs: 0): with it, a
// new origin would take a crowded origin's slot at once (the last cases of the file).
const base: FairOptions = { concurrency: 1, maxRunning: 4, perFlowRunning: 1, maxQueue: 8, perFlowQueue: 8, lendAfterMs: 60_000 };

/** A job the test ends by hand; `started` lists job names in start order. */
function harness(options: Partial<FairOptions> = {}) {
  const scheduler = new FairScheduler({ ...base, ...options });
  const started: string[] = [];
  const release = new Map<string, () => void>();
  const submit = (flow: string, name: string, signal?: AbortSignal) =>
    scheduler.run(flow, () => {
      started.push(name);
      return new Promise<string>((resolve) => release.set(name, () => resolve(name)));
    }, signal);
  const finish = async (name: string) => {
    release.get(name)!();
    // Let the settled job's finally and the next start run.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { scheduler, started, submit, finish };
}

describe("FairScheduler", () => {
  it("gives the next slot to a new origin, not to the origin that queued first", async () => {
    const { started, submit, finish } = harness({ preemptFlowJobs: 0 });
    const jobs = ["a1", "a2", "a3", "a4"].map((n) => submit("http://a", n));
    const b = submit("http://b", "b1");
    expect(started).toEqual(["a1"]);
    await finish("a1");
    // A FIFO would start a2 here, and b1 only after a4.
    expect(started).toEqual(["a1", "b1"]);
    await finish("b1");
    for (const n of ["a2", "a3", "a4"]) await finish(n);
    expect(started).toEqual(["a1", "b1", "a2", "a3", "a4"]);
    await Promise.all([...jobs, b]);
  });

  it("takes turns between origins with waiting jobs, the one served longest ago first", async () => {
    const { started, submit, finish } = harness();
    const all = [submit("http://a", "a1"), submit("http://a", "a2"), submit("http://a", "a3"), submit("http://b", "b1"), submit("http://b", "b2"), submit("http://c", "c1")];
    for (const n of ["a1", "b1", "c1", "a2", "b2", "a3"]) await finish(n);
    expect(started).toEqual(["a1", "b1", "c1", "a2", "b2", "a3"]);
    await Promise.all(all);
  });

  it("a job running past lendAfterMs lends its slot, within maxRunning and the origin's share", async () => {
    // The lend timers are the scheduler's only clock: fake timers step them exactly, whatever the machine's load.
    vi.useFakeTimers();
    try {
      const { scheduler, started, submit, finish } = harness({ lendAfterMs: 30, maxRunning: 2, preemptFlowJobs: 0 });
      const a = [submit("http://a", "a1"), submit("http://a", "a2")];
      const b = submit("http://b", "b1");
      const c = submit("http://c", "c1");
      expect(started).toEqual(["a1"]);
      await vi.advanceTimersByTimeAsync(29);
      expect(started).toEqual(["a1"]);
      await vi.advanceTimersByTimeAsync(1);
      // a1 still runs (its origin is slow) but no longer holds the slot: b1 started; a2 waits (a's share is 1),
      // and c1 waits too although b1 lent its slot as well: two jobs under way is maxRunning.
      expect(started).toEqual(["a1", "b1"]);
      expect([scheduler.active, scheduler.queued]).toEqual([2, 2]);
      // b1 lends its slot lendAfterMs after it started; c1 still waits for maxRunning, then takes a1's place.
      await vi.advanceTimersByTimeAsync(30);
      expect(started).toEqual(["a1", "b1"]);
      await finish("a1");
      expect(started).toEqual(["a1", "b1", "c1"]);
      for (const n of ["b1", "c1", "a2"]) await finish(n);
      await Promise.all([...a, b, c]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("one origin fills at most its share of the queue; others are still admitted", async () => {
    const { submit, finish } = harness({ perFlowQueue: 2, maxQueue: 3, preemptFlowJobs: 0 });
    const a = [submit("http://a", "a1"), submit("http://a", "a2"), submit("http://a", "a3")];
    const refused = await submit("http://a", "a4").catch((e: unknown) => e);
    expect(isRunnerError(refused) && refused.code).toBe("RUNNER_BUSY");
    const b = submit("http://b", "b1");
    const full = await submit("http://c", "c1").catch((e: unknown) => e);
    expect(isRunnerError(full) && full.code).toBe("RUNNER_BUSY");
    for (const n of ["a1", "b1", "a2", "a3"]) await finish(n);
    await Promise.all([...a, b]);
  });

  it("a waiting job whose caller goes away leaves the queue at once", async () => {
    const { scheduler, started, submit, finish } = harness();
    const a1 = submit("http://a", "a1");
    const gone = new AbortController();
    const b1 = submit("http://b", "b1", gone.signal);
    expect(scheduler.queued).toBe(1);
    gone.abort(new Error("caller went away"));
    await expect(b1).rejects.toThrow("caller went away");
    expect(scheduler.queued).toBe(0);
    await finish("a1");
    expect(started).toEqual(["a1"]);
    expect(scheduler.load("http://b")).toEqual({ running: 0, queued: 0 });
    await a1;
  });
});

describe("the runner under stalling origins", () => {
  let stalling: LoopbackOrigin;
  let good: LoopbackOrigin;
  beforeAll(async () => {
    stalling = await startLoopbackOrigin([inject("runnerFixturesDir")], "127.0.0.1");
    good = await startLoopbackOrigin([inject("runnerFixturesDir")], "127.0.0.2");
  });
  afterAll(async () => {
    await stalling.close();
    await good.close();
  });

  it("jobs stalled on one origin do not hold another origin's job until their deadlines", async () => {
    const fetchTimeoutMs = 3_000;
    const app = await testApp({
      SSRF_ALLOWLIST: `127.0.0.1:${stalling.port},127.0.0.2:${good.port}`,
      RUNNER_CONCURRENCY: "1",
      RUNNER_FETCH_TIMEOUT_MS: String(fetchTimeoutMs),
      RUNNER_SLOT_LEND_MS: "300",
    });
    try {
      const before = stalling.stats.requests.length;
      const stalled = Array.from({ length: 2 }, (_, i) =>
        processRequest(app, { url: `${stalling.url}/stall/tone.mp3?n=${i}`, category: "audio", stages: ["metadata"] }));
      // The first stalled job holds the one slot once its request reaches the origin.
      await waitFor(() => stalling.stats.requests.length > before, { what: "a stalled job at the origin" });
      const started = performance.now();
      const res = await processRequest(app, { url: `${good.url}/files/tone.mp3`, category: "audio", stages: ["metadata"] });
      const ms = performance.now() - started;
      expect(res.statusCode).toBe(200);
      // A FIFO would start it after both stalled jobs' deadlines (2 x 3 s); here it waits for one lend.
      expect(ms).toBeLessThan(fetchTimeoutMs);
      const answers = await Promise.all(stalled);
      expect(answers.map((r) => r.json().error?.code)).toEqual(Array(2).fill("UPSTREAM_TIMEOUT"));
    } finally {
      await app.close();
    }
  });
});

describe("an origin's jobs share the CPU as one", () => {
  // The engine reports its own nice value (field 19 of /proc/self/stat) after `waitMs`; given `startedMarker`, it
  // first creates that file, so a test can wait until the engine runs.
  const engineNice = (waitMs: number, startedMarker?: string) =>
    runProcess("sh", ["-c", `${startedMarker ? `: > '${startedMarker}'; ` : ""}sleep ${waitMs / 1000}; cut -d' ' -f19 /proc/$$/stat`], { timeoutMs: 5_000, maxStdoutBytes: 64 })
      .then(({ stdout }) => Number(stdout.toString().trim()));

  it("runs an origin's oldest job's engines at the runner's priority and its other jobs' in the background", async () => {
    const scheduler = new FairScheduler({ ...base, concurrency: 2, perFlowRunning: 2 });
    const [first, second] = await Promise.all([
      scheduler.run("http://crowded.test", () => engineNice(300)),
      scheduler.run("http://crowded.test", () => engineNice(300)),
    ]);
    expect([first, second]).toEqual([0, lentEngineNice]);
  });

  it("a lent job of a crowded origin yields the CPU; an origin's only job keeps it when lent", async () => {
    const scheduler = new FairScheduler({ ...base, concurrency: 2, perFlowRunning: 2, lendAfterMs: 100 });
    const [crowdedOldest, , alone] = await Promise.all([
      scheduler.run("http://crowded.test", () => engineNice(500)),
      scheduler.run("http://crowded.test", () => engineNice(500)),
      scheduler.run("http://alone.test", () => engineNice(500)),
    ]);
    // The alone job ran past the lend too (it may have been slowed by the crowded origin's), yet keeps priority.
    expect([crowdedOldest, alone]).toEqual([lentEngineNice, 0]);
  });

  it("a job of an origin with nothing under way takes a crowded origin's slot at once", async () => {
    const { scheduler, started, submit, finish } = harness({ concurrency: 2, perFlowRunning: 2 });
    const a = [submit("http://a", "a1"), submit("http://a", "a2")];
    expect(started).toEqual(["a1", "a2"]);
    // Both slots are a's: b1 and c1 do not wait for a lend (60 s here); a's jobs go on, lent.
    const b = submit("http://b", "b1");
    const c = submit("http://c", "c1");
    expect(started).toEqual(["a1", "a2", "b1", "c1"]);
    // Now each slot holder is all its origin runs: d1 waits for a slot.
    const d = submit("http://d", "d1");
    expect(started).toEqual(["a1", "a2", "b1", "c1"]);
    expect(scheduler.queued).toBe(1);
    await finish("b1");
    expect(started).toEqual(["a1", "a2", "b1", "c1", "d1"]);
    for (const n of ["a1", "a2", "c1", "d1"]) await finish(n);
    expect(scheduler.active).toBe(0);
    await Promise.all([...a, b, c, d]);
  });

  it("an origin's waiting jobs make it crowded too: a new origin takes the slot of one with a job in line", async () => {
    // What the starvation bench showed: slow origins whose jobs arrive one by one hold one slot each and keep a
    // job in line; the unrelated job used to wait for the next lend (a second and more) behind them.
    const { scheduler, started, submit, finish } = harness({ concurrency: 2, perFlowRunning: 1 });
    const jobs = [submit("http://a", "a1"), submit("http://b", "b1"), submit("http://a", "a2")];
    expect(started).toEqual(["a1", "b1"]);
    expect(scheduler.queued).toBe(1);
    // a has one job under way and one waiting: c1 takes a1's slot at once (a1 goes on, lent); b1 keeps its own.
    const c = submit("http://c", "c1");
    expect(started).toEqual(["a1", "b1", "c1"]);
    // b has nothing waiting, so d1 waits for a slot.
    const d = submit("http://d", "d1");
    expect(started).toEqual(["a1", "b1", "c1"]);
    await finish("c1");
    expect(started).toEqual(["a1", "b1", "c1", "d1"]);
    for (const n of ["a1", "b1", "d1", "a2"]) await finish(n);
    await Promise.all([...jobs, c, d]);
  });

  it("a caller spreading jobs over many origins is crowded as one: another caller's job takes a slot at once", async () => {
    const { scheduler, started } = harness({ concurrency: 2, perFlowRunning: 2 });
    const spread = (origin: string, name: string) =>
      scheduler.run(origin, () => {
        started.push(name);
        return new Promise<string>((resolve) => release.set(name, () => resolve(name)));
      }, undefined, "caller-a");
    const release = new Map<string, () => void>();
    // Caller a: one job on each of three origins; two hold the slots and one waits.
    const a = [spread("http://a1", "a1"), spread("http://a2", "a2"), spread("http://a3", "a3")];
    expect(started).toEqual(["a1", "a2"]);
    // Caller b's job does not wait for a lend (60 s here): a's youngest job lends its slot at once.
    const b = scheduler.run("http://b", async () => {
      started.push("b1");
      return "b1";
    }, undefined, "caller-b");
    expect(started).toEqual(["a1", "a2", "b1"]);
    await b;
    // The same jobs without caller keys: each origin has one job, none is crowded, so b1 waits for a slot.
    const plain = harness({ concurrency: 2, perFlowRunning: 2 });
    const p = [plain.submit("http://a1", "a1"), plain.submit("http://a2", "a2"), plain.submit("http://a3", "a3"), plain.submit("http://b", "b1")];
    expect(plain.started).toEqual(["a1", "a2"]);
    for (const n of ["a1", "a2", "a3", "b1"]) await plain.finish(n);
    await Promise.all(p);
    for (const n of ["a1", "a2"]) release.get(n)!();
    for (let i = 0; i < 10; i++) await Promise.resolve();
    release.get("a3")!();
    await Promise.all(a);
  });

  it("a crowded origin's engines, running and new, yield to a light origin's job while it runs", async () => {
    const scheduler = new FairScheduler({ ...base, concurrency: 2, perFlowRunning: 2 });
    // a1 is a's oldest job, so its engine starts in the foreground; a2 makes a crowded.
    const markers = mkdtempSync(join(tmpdir(), "engine-started-"));
    const a1 = scheduler.run("http://crowded.test", async () => [await engineNice(600, join(markers, "a1")), await engineNice(0)]);
    const a2 = scheduler.run("http://crowded.test", () => engineNice(1_000, join(markers, "a2")));
    await waitFor(() => existsSync(join(markers, "a1")) && existsSync(join(markers, "a2")), { what: "a1's and a2's engines running" });
    // b1 is its origin's only job: a1's running engine goes to the background, and so does the one it starts
    // next while b1 still runs; a2, whose slot b1 took, too.
    const b1 = scheduler.run("http://light.test", () => engineNice(1_200));
    expect(await Promise.all([a1, a2, b1])).toEqual([[lentEngineNice, lentEngineNice], lentEngineNice, 0]);
    // With no light origin's job under way, the crowded origin's oldest job is back in the foreground.
    const [again] = await Promise.all([scheduler.run("http://crowded.test", () => engineNice(0)), scheduler.run("http://crowded.test", () => engineNice(0))]);
    expect(again).toBe(0);
    rmSync(markers, { recursive: true, force: true });
  });
});
