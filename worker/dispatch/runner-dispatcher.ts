/**
 * How a resource's runner work is started and kept alive. When a caller waits (`full`, `standard`), the
 * Durable Object calls the runner itself at once (no queue batch wait); otherwise (`fast`, background work)
 * it goes through the queue. Either way a row in the object's dispatch ledger says what is under way, and a
 * failed or lost call goes to the queue, the durable retry path, with backoff:
 *
 * - a direct call that fails transiently (runner unreachable, busy, restarting) is re-sent through the queue;
 * - a direct call cut off by a Worker restart (its row belongs to an earlier incarnation of the object) is
 *   re-dispatched by the object's alarm, which runs every DISPATCH_WATCHDOG_MS while direct work is under way
 *   and fires at once after the restart if its time passed meanwhile;
 * - a queue message not picked up within QUEUE_PICKUP_GRACE_MS after its delay (lost with the process: local
 *   queues live in memory), or started and not finished within RUNNER_TIMEOUT_MS, is re-dispatched too.
 * Every re-dispatch counts as an attempt; after RUNNER_MAX_ATTEMPTS the stages end as failed. So no stage
 * stays pending longer than about DISPATCH_WATCHDOG_MS (or the pickup grace) plus the retry budget.
 */
import type { Config } from "../config/config.ts";
import type { RunnerWorkMessage } from "../../shared/schemas/queue.ts";
import type { StageName } from "../../shared/schemas/stages.ts";
import type { RunnerHead, RunnerUsage } from "../../shared/shapes/runner.ts";
import type { RunnerOutcome } from "../record/runner-results.ts";
import type { DispatchLedger, DispatchVia } from "./dispatch-ledger.ts";
import { asRunnerError, decideRetry } from "./retry-policy.ts";
import { performRunnerWork, type RunnerWork } from "./runner-work.ts";
import { errorField, logEvent } from "../log/event-log.ts";

/** What a log line about runner work names: the resource, its stages, the inspection that asked, the error. */
function workFields(work: RunnerWork, err: unknown): Record<string, unknown> {
  return { resource: work.key, stages: work.stages, ...(work.requestId ? { requestId: work.requestId } : {}), error: errorField(err) };
}

/** The caller fields of runner work, as the ledger keeps them. */
function callerOf(work: RunnerWork): DispatchCaller {
  return { ...(work.requestId ? { requestId: work.requestId } : {}), ...(work.client ? { client: work.client } : {}) };
}

/** Time after RUNNER_TIMEOUT_MS before a running call counts as lost (the call's own deadline fires first). */
const lostMargin = 5_000;

/** The inspection that started the work: its X-Request-Id and its caller's opaque key (RunnerRequest.client). */
export interface DispatchCaller {
  requestId?: string;
  client?: string;
}

/** What the object provides: its record's view of the stages, and how a result or a retry is written. */
export interface DispatchHost {
  env: Env;
  config(): Config;
  stillPending(stages: readonly StageName[]): StageName[];
  work(stages: StageName[]): RunnerWork | undefined;
  /** The edge's bytes for the first direct call, handed over once (later calls and the queue go without). */
  takeHead(): RunnerHead | undefined;
  apply(outcome: RunnerOutcome): Promise<void>;
  /** A failed call's spending, charged to the inspection before it is retried (or ends). */
  noteRetry(stages: StageName[], reason: string, usage?: RunnerUsage): void;
  /** An alarm at or before `at`. */
  wakeAt(at: number): Promise<void>;
}

export class RunnerDispatcher {
  /** Random per object start: a direct call recorded by another incarnation was cut off by a restart. */
  private readonly incarnation = crypto.randomUUID();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly ledger: DispatchLedger,
    private readonly host: DispatchHost,
  ) {}

  /**
   * Starts runner work for stages (already marked queued on the record). Rejects only if the queue refused.
   * `caller`: the inspection that asked for it, for the log lines and the runner's per-caller shares; the
   * ledger keeps it, so a watchdog re-dispatch and a retry carry it too.
   */
  async dispatch(stages: StageName[], via: DispatchVia, attempt = 1, caller: DispatchCaller = {}): Promise<void> {
    const planned = this.host.work(stages);
    if (!planned) return;
    const work: RunnerWork = {
      ...planned,
      ...(caller.requestId ? { requestId: caller.requestId } : {}),
      ...(caller.client ? { client: caller.client } : {}),
    };
    const head = this.host.takeHead();
    if (via === "queue") return this.enqueue(work, attempt, 0);
    const config = this.host.config();
    const now = Date.now();
    const id = this.ledger.add({ stages, via, owner: this.incarnation, attempt, deadline: now + config.RUNNER_TIMEOUT_MS + lostMargin, caller: callerOf(work) });
    await this.host.wakeAt(now + config.DISPATCH_WATCHDOG_MS);
    const call: Promise<void> = this.callDirect(id, work, attempt, head)
      .catch((err) => logEvent("error", "direct runner dispatch failed; the watchdog will retry it", workFields(work, err)))
      .finally(() => this.running.delete(call));
    this.running.add(call);
  }

  /** Resolves when the direct calls under way have ended (tests, and a `full` caller's bounded wait). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private async callDirect(id: number, work: RunnerWork, attempt: number, head: RunnerHead | undefined): Promise<void> {
    const config = this.host.config();
    let outcome: RunnerOutcome;
    try {
      outcome = await performRunnerWork(this.host.env, config, work, head);
    } catch (err) {
      this.ledger.remove(id);
      const stages = this.host.stillPending(work.stages);
      if (stages.length === 0) return;
      const decision = decideRetry(err, attempt, config);
      const usage = asRunnerError(err).usage;
      if (decision.kind === "fail") return this.host.apply({ stages, error: decision.reason, ...(usage ? { usage } : {}) });
      this.host.noteRetry(stages, decision.reason, usage);
      // The retry's budget is what is left after this call's spending (the consumer asks the object again).
      await this.enqueue({ ...work, stages }, attempt + 1, decision.delaySeconds).catch((error) =>
        logEvent("error", "runner retry could not be queued; the watchdog will dispatch it", workFields(work, error)));
      return;
    }
    this.ledger.remove(id);
    await this.host.apply(outcome);
  }

  private async enqueue(work: RunnerWork, attempt: number, delaySeconds: number): Promise<void> {
    const config = this.host.config();
    const deadline = Date.now() + delaySeconds * 1000 + config.QUEUE_PICKUP_GRACE_MS;
    const id = this.ledger.add({ stages: work.stages, via: "queue", owner: this.incarnation, attempt, deadline, caller: callerOf(work) });
    const message: RunnerWorkMessage = { version: 1, ...work, attempt };
    try {
      await this.host.env.RUNNER_WORK_QUEUE.send(message, delaySeconds > 0 ? { delaySeconds } : undefined);
    } catch (err) {
      this.ledger.remove(id);
      throw err;
    }
    await this.host.wakeAt(deadline);
  }

  /** The consumer started the work, or will retry it after delaySeconds: it is not lost before then. */
  noteQueueProgress(stages: readonly StageName[], state: { startedAt: number } | { retryInSeconds: number }): void {
    const config = this.host.config();
    const deadline = "startedAt" in state
      ? state.startedAt + config.RUNNER_TIMEOUT_MS + lostMargin
      : Date.now() + state.retryInSeconds * 1000 + config.QUEUE_PICKUP_GRACE_MS;
    this.ledger.extendFor(stages, deadline);
  }

  /**
   * The alarm's part: finished rows go, lost work is dispatched again (directly: nobody else will). Returns
   * when to look again, or undefined when nothing is under way.
   */
  async watchdog(now: number): Promise<number | undefined> {
    const config = this.host.config();
    this.ledger.prune((stages) => this.host.stillPending(stages));
    for (const row of this.ledger.all()) {
      const lost = row.via === "direct" ? row.owner !== this.incarnation || now > row.deadline : now > row.deadline;
      if (!lost) continue;
      this.ledger.remove(row.id);
      const stages = this.host.stillPending(row.stages);
      if (stages.length === 0) continue;
      const why = row.via === "direct" ? "the runner call was cut off (Worker restart)" : "the queued runner work was lost or timed out";
      if (row.attempt >= config.RUNNER_MAX_ATTEMPTS) {
        await this.host.apply({ stages, error: `${why}; gave up after ${row.attempt} attempts` });
        continue;
      }
      this.host.noteRetry(stages, why);
      await this.dispatch(stages, "direct", row.attempt + 1, row.caller ?? {});
    }
    return this.nextWake(now);
  }

  /**
   * When the watchdog next needs to look (finished rows are dropped first), or undefined when nothing is
   * under way: the object re-arms its alarm with this once work ends, instead of waking for nothing.
   */
  nextWake(now: number): number | undefined {
    this.ledger.prune((stages) => this.host.stillPending(stages));
    const direct = this.ledger.all().some((row) => row.via === "direct");
    const next = [this.ledger.nextDeadline(), direct ? now + this.host.config().DISPATCH_WATCHDOG_MS : undefined].filter((t): t is number => t !== undefined);
    return next.length > 0 ? Math.min(...next) : undefined;
  }
}
