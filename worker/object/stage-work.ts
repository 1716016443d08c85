import type { Config } from "../config/config.ts";
import { ApiError } from "../errors/api-error.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { StageName } from "../../shared/schemas/stages.ts";
import type { RunnerBudget, RunnerUsage } from "../../shared/shapes/runner.ts";
import { runEdgeImageStages } from "../stages/edge-image-stages.ts";
import { runPageMediaStage } from "../stages/page-media-stage.ts";
import { provenanceTailPending, runProvenanceTailStage } from "../stages/provenance-tail-stage.ts";
import type { DispatchLedger } from "../dispatch/dispatch-ledger.ts";
import { RunnerDispatcher, type DispatchCaller } from "../dispatch/runner-dispatcher.ts";
import { inspectionBudgetLeft, runnerWorkFor } from "../dispatch/runner-work.ts";
import { runnerHeadOf } from "../dispatch/runner-head.ts";
import { applyRunnerOutcome, type RunnerOutcome } from "../record/runner-results.ts";
import { addTransfer, usageTransfer } from "../record/transfer.ts";
import { failStages, isComplete, markQueued, markStarted, noteRetry, stillPending, unmarkQueued } from "../record/stage-state.ts";
import { errorField, logEvent } from "../log/event-log.ts";
import type { AlarmClock } from "./alarm-clock.ts";
import type { JobDesk } from "./job-desk.ts";
import { inspectNested } from "./nested-inspection.ts";
import type { RecordSource } from "./record-source.ts";
import { RecordWaiters } from "./record-waiters.ts";
import type { InspectCall } from "./resource-rpc.ts";
import { stagesForEdge, stagesForRunner } from "./stage-plan.ts";

/**
 * The resource object's stage work after the first inspection: edge image stages (once, however many callers
 * ask), runner stages (directly when a caller waits, else through the queue; worker/dispatch), a page's named
 * media, the runner's answers, and the `full` callers waiting for the record to complete (woken on every change,
 * no polling). Stages are planned generically from the registry (stage-plan.ts) and the state machine
 * (stage-state.ts).
 */
export class StageWork {
  private edgeWork?: Promise<void>;
  private pageMediaWork?: Promise<void>;
  private readonly waiters = new RecordWaiters();
  readonly dispatcher: RunnerDispatcher;

  constructor(
    ledger: DispatchLedger,
    private readonly env: Env,
    private readonly config: () => Config,
    private readonly source: RecordSource,
    private readonly desk: JobDesk,
    private readonly alarm: AlarmClock,
  ) {
    this.dispatcher = new RunnerDispatcher(ledger, {
      env,
      config,
      stillPending: (stages) => this.stillPending(stages),
      work: (stages) => {
        const record = source.record();
        return record ? runnerWorkFor(record, stages) : undefined;
      },
      takeHead: () => {
        const record = source.record();
        const head = record ? runnerHeadOf(record, source.bytes.head, source.bytes.tail) : undefined;
        source.bytes.head = undefined;
        source.bytes.tail = undefined;
        return head;
      },
      apply: (outcome) => this.applyRunner(outcome),
      noteRetry: (stages, reason, usage) => {
        const record = source.record();
        if (!record) return;
        noteRetry(record, stages, reason);
        if (usage) addTransfer(record, usageTransfer(usage));
        source.save(record);
      },
      wakeAt: (at) => alarm.wakeBy(at),
    });
  }

  /** Stages of `stages` still pending. */
  stillPending(stages: readonly StageName[]): StageName[] {
    const record = this.source.record();
    return record ? stillPending(record, stages) : [];
  }

  /**
   * The runner's answer for a message. A category revision can register stages that the runner has not been
   * asked for yet (audio that turned out to be video gets previews): those are queued at once.
   */
  async applyRunner(outcome: RunnerOutcome): Promise<void> {
    const record = this.source.record();
    if (!record) return;
    // A failed job's spending counts whatever its stages became (another call may have ended them).
    if (outcome.usage) addTransfer(record, usageTransfer(outcome.usage));
    if (!applyRunnerOutcome(record, outcome)) {
      if (outcome.usage) this.source.save(record);
      return;
    }
    const r = outcome.result;
    if (r) addTransfer(record, { bytes: r.bytesFetched ?? 0, requests: r.requests ?? 0, redirects: r.redirects ?? 0, engineMs: r.engineMs ?? 0 });
    await this.recordChanged(record);
    await this.queueRunnerStages(record, this.config().RUNNER_DISPATCH);
    await this.alarm.rearm();
  }

  /** The consumer is about to call the runner for these stages: what the inspection has left of its budget. */
  markRunnerStarted(stages: StageName[]): RunnerBudget | undefined {
    const record = this.source.record();
    if (!record) return undefined;
    const now = Date.now();
    markStarted(record, stages, now);
    this.source.save(record);
    this.dispatcher.noteQueueProgress(stages, { startedAt: now });
    return inspectionBudgetLeft(record);
  }

  noteRunnerRetry(stages: StageName[], error: string, retryInSeconds: number, usage?: RunnerUsage): void {
    const record = this.source.record();
    if (!record) return;
    noteRetry(record, stages, error);
    if (usage) addTransfer(record, usageTransfer(usage));
    this.source.save(record);
    this.dispatcher.noteQueueProgress(stages, { retryInSeconds });
  }

  /** A page's named media, inspected before the page's answer (once; concurrent callers share the work). */
  async runPageMedia(record: ResourceRecord, call: InspectCall): Promise<void> {
    if (call.nested || record.stages["page:media"]?.state !== "pending") return;
    this.pageMediaWork ??= runPageMediaStage(record, (url, profile) => inspectNested(this.env, url, profile, record.normalizedUrl), call.profile === "full" ? "full" : "fast")
      .then(() => this.recordChanged(record))
      .finally(() => {
        this.pageMediaWork = undefined;
      });
    await this.pageMediaWork;
  }

  edgePending(record: ResourceRecord): boolean {
    return stagesForEdge(record, this.config()).length > 0 || provenanceTailPending(record);
  }

  /** Runs the edge image stages once, however many callers ask at the same time. */
  runEdgeStages(): Promise<void> {
    this.edgeWork ??= this.edgeStages().finally(() => {
      this.edgeWork = undefined;
    });
    return this.edgeWork;
  }

  private async edgeStages(): Promise<void> {
    const record = this.source.record();
    if (!record) return;
    const config = this.config();
    if (provenanceTailPending(record)) {
      const jpegHead = await runProvenanceTailStage(record, config, this.source.bytes.image);
      // The image's bytes from its start, now longer: the previews fetch only what follows.
      if (jpegHead && jpegHead.byteLength > (this.source.bytes.image?.byteLength ?? 0)) this.source.bytes.image = jpegHead;
      await this.recordChanged(record);
    }
    const stages = stagesForEdge(record, config);
    if (stages.length === 0) return;
    try {
      const run = await runEdgeImageStages(record, stages, config, this.env, this.source.bytes.image);
      this.source.bytes.image = undefined;
      await this.recordChanged(record);
      // Refused at decode time (format or size found only then): the runner takes over.
      if (run === "needs-runner") await this.queueRunnerStages(record, this.config().RUNNER_DISPATCH);
    } catch (err) {
      if (err instanceof ApiError && (err.status === 413 || err.status === 404)) {
        // The file turned out to be over the cap (or gone) although its headers said otherwise.
        this.source.forget();
        this.source.rememberError(err);
        throw err;
      }
      // The download failed (5xx, reset, timeout) after a good probe: the previews end as failed, never pending.
      const reason = err instanceof ApiError ? `${err.code}: ${err.publicMessage}` : "edge image stages failed";
      if (!(err instanceof ApiError)) logEvent("error", "edge image stages failed", { resource: record.key, error: errorField(err) });
      failStages(record, stages, reason, "edge");
      await this.recordChanged(record);
    }
  }

  /** Dispatches the stages only the media runner can do, once (re-sent by the watchdog if lost). */
  async queueRunnerStages(record: ResourceRecord, via: "direct" | "queue", caller: DispatchCaller = {}): Promise<void> {
    const now = Date.now();
    const stages = stagesForRunner(record, this.config(), now);
    if (stages.length === 0 || record.category === "embedded" || record.category === "webpage") return;
    // Mark the stages queued before the first await, so a concurrent caller sees them taken and sends nothing.
    markQueued(record, stages, now, "runner");
    if (via === "direct") markStarted(record, stages, now);
    this.source.save(record);
    try {
      await this.dispatcher.dispatch(stages, via, 1, caller);
    } catch (err) {
      const current = this.source.record();
      if (current) {
        unmarkQueued(current, stages, now);
        this.source.save(current);
      }
      throw err;
    }
  }

  /** Persists a changed record, wakes `full` waiters and, once complete, completes jobs and queues webhooks. */
  private async recordChanged(record: ResourceRecord): Promise<void> {
    const complete = isComplete(record);
    if (complete) record.timings.total = Math.max(record.timings.total ?? 0, Date.now() - record.createdAt);
    if (complete) this.source.bytes.head = this.source.bytes.tail = undefined; // no runner call left to hand them to
    this.source.save(record);
    if (complete) await this.desk.completeOpen();
    this.waiters.wake();
  }

  /** Resolves when `done` holds for the record (or it is gone) or the time is up; woken by recordChanged, no polling. */
  waitForCompletion(timeoutMs: number, done: (record: ResourceRecord) => boolean = isComplete): Promise<void> {
    return this.waiters.waitFor(timeoutMs, () => {
      const record = this.source.record();
      return !record || done(record);
    });
  }
}
