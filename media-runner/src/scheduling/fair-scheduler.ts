/**
 * Which waiting job gets the next runner slot. The old single FIFO let one caller's
 * slow-origin jobs hold every slot and queue ahead of everyone else. Here:
 *
 * - jobs wait per flow (their origin, and their caller when the Worker names one: RunnerRequest.client), and a
 *   free slot goes to the waiting flow whose caller has the fewest running jobs, then with the fewest running
 *   jobs itself, among equals the one whose last start is oldest (a new flow has none), so a new origin's job is
 *   next whatever another origin has queued, and origins with waiting jobs take turns;
 * - an origin runs at most `perFlowRunning` jobs at once and queues at most `perFlowQueue`, so it cannot take
 *   all the capacity or fill the whole queue;
 * - `concurrency` counts busy jobs only: a job still running after `lendAfterMs` (jobs here take well under a
 *   second unless they wait on a slow origin; a job's CPU-heavy steps have their own process limits) lends its
 *   slot to the next waiter. `maxRunning` bounds the jobs under way in all, lent ones included, so memory
 *   stays bounded;
 * - a flow with `preemptFlowJobs` or more jobs in the runner, under way or waiting, is crowded, and so is every
 *   flow of a caller with that many over all its origins (one caller cannot spread over origins to stay light). A job of a flow
 *   with nothing under way does not wait for a lend when every busy slot is held by crowded flows: it takes the
 *   slot of the youngest such job at once, and that job goes on as a lent one, in the background. (Counting
 *   only jobs under way missed slow origins whose jobs arrive one by one: each held one slot with its next job
 *   in line, and the unrelated job waited for the next lend);
 * - the CPU is shared by flow, not by slot: a flow's oldest job under way runs its engines in the foreground,
 *   its other jobs in the background (engine-priority.ts), whether they hold a slot or not; and a lent job of a
 *   flow with other jobs under way goes to the background too. A flow's only job keeps the foreground when it
 *   is lent: a job can run past `lendAfterMs` because the CPU is contended rather than because its origin is
 *   slow, and the unrelated job slowed down by a crowded origin must not then yield to that origin's jobs;
 * - while a light (not crowded) flow has a job under way, crowded flows' engines all run in the background,
 *   those running when it starts and those started after: one engine start is about 200 ms of CPU, and four
 *   slow origins' foreground engines doubled an unrelated job's frame step on 2 cores;
 * - a waiting job whose signal fires (the caller went away, shutdown) leaves the queue at once.
 *
 * Beyond the queue bounds the runner answers 503 RUNNER_BUSY at once rather than letting latency grow.
 */
import { RunnerError } from "../errors.ts";
import { EnginePriority, withEnginePriority } from "../media/engine-priority.ts";
import { PREEMPT_FLOW_JOBS } from "../config.ts";

export interface FairOptions {
  /** Busy jobs at once (about one per core). */
  concurrency: number;
  /** Jobs under way at once, lent ones included. */
  maxRunning: number;
  /** Jobs of one flow under way at once. */
  perFlowRunning: number;
  /** Jobs waiting in all. */
  maxQueue: number;
  /** Jobs of one flow waiting. */
  perFlowQueue: number;
  /** After this long a running job stops counting against `concurrency`. */
  lendAfterMs: number;
  /**
   * A flow with at least this many jobs in the runner (under way or waiting) is crowded: its busy job gives its
   * slot at once to a job of a flow with none, and its engines yield the CPU to light flows' jobs (default
   * PREEMPT_FLOW_JOBS); 0 turns both off.
   */
  preemptFlowJobs?: number;
}

/** A job under way, as its flow sees it. */
interface FlowJob {
  priority: EnginePriority;
  /** Lent while its flow had other jobs under way: in the background for good. */
  yielded: boolean;
}

/** A job holding a slot (not lent yet). */
interface Busy {
  flow: Flow;
  /** Start sequence number. */
  seq: number;
  /** Gives the slot up (the job goes on as a lent one). */
  lend(): void;
}

interface Waiter {
  flow: Flow;
  start: () => void;
}

interface Flow {
  key: string;
  /** The caller whose jobs these are ("" when unknown: no per-caller share). */
  client: string;
  running: number;
  /** The flow's jobs under way, oldest first: only the first may be in the foreground. */
  jobs: FlowJob[];
  queue: Waiter[];
  /** Sequence number of this flow's latest start (0: none yet). */
  lastStart: number;
}

/** Jobs a flow has in the runner, under way or waiting: what makes it crowded. */
function demandOf(flow: Flow): number {
  return flow.running + flow.queue.length;
}

/** The flow of a job: its origin (scheme, host, port). */
export function flowOf(url: string): string {
  return new URL(url).origin;
}

export class FairScheduler {
  private readonly flows = new Map<string, Flow>();
  /** Flows with waiting jobs (at most maxQueue). */
  private ring: Flow[] = [];
  private starts = 0;
  private waiting = 0;
  private running = 0;
  private busy = 0;
  /** Jobs holding a slot, oldest first (at most concurrency). */
  private readonly holders = new Set<Busy>();

  constructor(readonly options: FairOptions) {}

  get concurrency(): number {
    return this.options.concurrency;
  }

  /** Jobs under way (lent ones included). */
  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting;
  }

  /** Running and waiting jobs of one flow (tests, diagnostics). */
  load(flowKey: string): { running: number; queued: number } {
    const flow = this.flows.get(flowKey);
    return { running: flow?.running ?? 0, queued: flow?.queue.length ?? 0 };
  }

  /**
   * Runs `job` when the flow's turn comes; rejects with RUNNER_BUSY when the queue bounds are reached. `client`:
   * the caller (RunnerRequest.client); each caller's jobs on an origin are a flow of their own, and a caller
   * with `preemptFlowJobs` or more jobs in the runner, over however many origins, is crowded like one origin.
   */
  run<T>(origin: string, job: () => Promise<T>, signal?: AbortSignal, client = ""): Promise<T> {
    signal?.throwIfAborted();
    const flowKey = client ? `${client} ${origin}` : origin;
    const flow = this.flows.get(flowKey) ?? { key: flowKey, client, running: 0, jobs: [], queue: [], lastStart: 0 };
    if (flow.queue.length === 0 && this.ring.length === 0 && (this.canStart(flow) || this.preemptFor(flow))) {
      this.flows.set(flowKey, flow);
      return this.start(flow, job);
    }
    if (this.waiting >= this.options.maxQueue || flow.queue.length >= this.options.perFlowQueue) {
      return Promise.reject(new RunnerError("RUNNER_BUSY", "the runner is at capacity; retry later"));
    }
    this.flows.set(flowKey, flow);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        const i = flow.queue.indexOf(waiter);
        if (i < 0) return;
        flow.queue.splice(i, 1);
        this.waiting -= 1;
        if (flow.queue.length === 0) this.ring = this.ring.filter((f) => f !== flow);
        this.forget(flow);
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        flow,
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          this.start(flow, job).then(resolve, reject);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      flow.queue.push(waiter);
      this.waiting += 1;
      if (flow.queue.length === 1) this.ring.push(flow);
      this.pump();
    });
  }

  private canStart(flow: Flow): boolean {
    const o = this.options;
    return this.busy < o.concurrency && this.running < o.maxRunning && flow.running < o.perFlowRunning;
  }

  /**
   * Frees a busy slot for `flow` when it has no job under way and the slots are all held: the youngest busy
   * job of a flow with `preemptFlowJobs` or more jobs under way lends its slot now. Returns whether one did.
   */
  private preemptFor(flow: Flow): boolean {
    const o = this.options;
    const threshold = o.preemptFlowJobs ?? PREEMPT_FLOW_JOBS;
    if (threshold <= 0 || flow.running > 0 || this.busy < o.concurrency || this.running >= o.maxRunning || flow.running >= o.perFlowRunning) return false;
    let victim: Busy | undefined;
    if (this.isCrowded(flow)) return false; // a caller with jobs elsewhere waits its turn
    for (const held of this.holders) if (this.isCrowded(held.flow) && (!victim || held.seq > victim.seq)) victim = held;
    if (!victim) return false;
    victim.lend();
    return this.canStart(flow);
  }

  private start<T>(flow: Flow, job: () => Promise<T>): Promise<T> {
    flow.running += 1;
    flow.lastStart = ++this.starts;
    this.running += 1;
    this.busy += 1;
    // The flow's oldest job is its foreground one; a second job runs in the background until it is the oldest.
    // A crowded flow's engines also yield to any light flow's job under way.
    const priority = new EnginePriority(flow.jobs.length > 0, () => this.isCrowded(flow) && this.lightFlowRunning());
    const mine: FlowJob = { priority, yielded: false };
    flow.jobs.push(mine);
    if (!this.isCrowded(flow)) this.crowdedYield();
    const held: Busy = {
      flow,
      seq: this.starts,
      lend: () => {
        if (!this.holders.delete(held)) return;
        clearTimeout(timer);
        this.busy -= 1;
        if (demandOf(flow) > 1 || this.isCrowded(flow)) {
          mine.yielded = true;
          priority.lower();
        }
      },
    };
    this.holders.add(held);
    const timer = setTimeout(() => {
      held.lend();
      this.pump();
    }, this.options.lendAfterMs);
    timer.unref();
    const finish = () => {
      clearTimeout(timer);
      const i = flow.jobs.indexOf(mine);
      flow.jobs.splice(i, 1);
      const next = flow.jobs[0];
      if (i === 0 && next && !next.yielded) next.priority.raise();
      flow.running -= 1;
      this.running -= 1;
      if (this.holders.delete(held)) this.busy -= 1;
      this.forget(flow);
      this.pump();
    };
    let result: Promise<T>;
    try {
      result = withEnginePriority(priority, job);
    } catch (error) {
      result = Promise.reject(error);
    }
    return result.finally(finish);
  }

  /**
   * Starts waiting jobs while capacity allows: the eligible flow with the fewest running jobs first, then the
   * one served longest ago. A linear scan: the ring holds at most maxQueue flows.
   */
  private pump(): void {
    while (this.ring.length > 0) {
      let best: Flow | undefined;
      for (const flow of this.ring) {
        if (!this.canStart(flow)) continue;
        if (!best || this.startsBefore(flow, best)) best = flow;
      }
      // No flow can start: a waiting flow with nothing under way may still take a slot from a crowded flow.
      best ??= this.ring.find((flow) => this.preemptFor(flow));
      if (!best) return;
      const waiter = best.queue.shift()!;
      this.waiting -= 1;
      if (best.queue.length === 0) this.ring = this.ring.filter((f) => f !== best);
      waiter.start();
    }
  }

  /** Which of two waiting flows starts first: the caller with fewer jobs running, then the flow, then the one served longest ago. */
  private startsBefore(a: Flow, b: Flow): boolean {
    const ca = this.clientLoad(a.client, (f) => f.running);
    const cb = this.clientLoad(b.client, (f) => f.running);
    if (ca !== cb) return ca < cb;
    if (a.running !== b.running) return a.running < b.running;
    return a.lastStart < b.lastStart;
  }

  /** A caller's jobs summed over its flows (0 for the unknown caller ""). A scan over at most maxRunning + maxQueue flows. */
  private clientLoad(client: string, count: (flow: Flow) => number): number {
    if (!client) return 0;
    let total = 0;
    for (const flow of this.flows.values()) if (flow.client === client) total += count(flow);
    return total;
  }

  /** A flow, or a caller, with `preemptFlowJobs` or more jobs in the runner (under way or waiting). */
  private isCrowded(flow: Flow): boolean {
    const threshold = this.options.preemptFlowJobs ?? PREEMPT_FLOW_JOBS;
    return threshold > 0 && (demandOf(flow) >= threshold || this.clientLoad(flow.client, demandOf) >= threshold);
  }

  /** Whether a flow that is not crowded has a job under way. A scan: the map holds at most maxRunning + maxQueue flows. */
  private lightFlowRunning(): boolean {
    for (const flow of this.flows.values()) if (flow.running > 0 && !this.isCrowded(flow)) return true;
    return false;
  }

  /** A light flow's job started: the engines running for crowded flows go to the background. */
  private crowdedYield(): void {
    for (const flow of this.flows.values()) {
      if (!this.isCrowded(flow)) continue;
      for (const job of flow.jobs) job.priority.yieldRunning();
    }
  }

  /** An idle flow is dropped, so the map holds only flows with running or waiting jobs. */
  private forget(flow: Flow): void {
    if (flow.running === 0 && flow.queue.length === 0) this.flows.delete(flow.key);
  }
}
