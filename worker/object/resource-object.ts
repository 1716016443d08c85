import { DurableObject } from "cloudflare:workers";
import { getConfig, type Config } from "../config/config.ts";
import type { StageName } from "../../shared/schemas/stages.ts";
import type { RunnerBudget, RunnerUsage } from "../../shared/shapes/runner.ts";
import { JobStore } from "../jobs/job-store.ts";
import { DispatchLedger } from "../dispatch/dispatch-ledger.ts";
import type { RunnerOutcome } from "../record/runner-results.ts";
import type { AlarmClock } from "./alarm-clock.ts";
import { inspect, type Rooms } from "./inspection.ts";
import { JobDesk } from "./job-desk.ts";
import { RecordSource } from "./record-source.ts";
import { RecordStore } from "./record-store.ts";
import type { InspectCall, InspectReply, JobReply } from "./resource-rpc.ts";
import { StageWork } from "./stage-work.ts";

/**
 * One object per resource (named by the normalised URL): the shell. It holds the object's state (SQLite tables,
 * the alarm) and lends its rooms what they need: the record's source (record-source.ts: stored record,
 * revalidation, single-flight probe), stage work (stage-work.ts: edge, runner and page-media runs, the wait for
 * completion), the job desk (job-desk.ts), and the steps of an inspection (inspection.ts). The only file that
 * touches this object's storage and alarm. Errors cross the RPC boundary as values (resource-rpc.ts).
 */
export class ResourceObject extends DurableObject<Env> {
  private readonly store: RecordStore;
  private readonly jobs: JobStore;
  private readonly rooms: Rooms;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new RecordStore(ctx.storage.sql);
    this.jobs = new JobStore(ctx.storage.sql);
    const config = () => this.config;
    const alarm: AlarmClock = { wakeBy: (at) => this.wakeBy(at), rearm: () => this.rearmAlarm() };
    const source = new RecordSource(this.store, env, config, alarm);
    const desk = new JobDesk(this.jobs, ctx.id.toString(), config, alarm);
    const work = new StageWork(new DispatchLedger(ctx.storage.sql), env, config, source, desk, alarm);
    this.rooms = { source, work, desk, alarm, config };
  }

  private get config(): Config {
    return getConfig(this.env);
  }

  async inspect(call: InspectCall): Promise<InspectReply> {
    return await inspect(call, this.rooms);
  }

  async getJob(jobId: string): Promise<JobReply> {
    return this.rooms.desk.view(jobId, Date.now(), (now) => this.rooms.source.record(now));
  }

  /** Stages of `stages` still pending: the queue consumer skips a message whose work is already done. */
  async stillPending(stages: StageName[]): Promise<StageName[]> {
    return this.rooms.work.stillPending(stages);
  }

  /** The runner's answer for a message (stage-work.ts). */
  async applyRunner(outcome: RunnerOutcome): Promise<void> {
    await this.rooms.work.applyRunner(outcome);
  }

  /**
   * The consumer is about to call the runner for these stages (job status `active`). Returns what the
   * inspection has left of its budget now (a retried message carries the budget of its first send).
   */
  async markRunnerStarted(stages: StageName[]): Promise<RunnerBudget | undefined> {
    return this.rooms.work.markRunnerStarted(stages);
  }

  async noteRunnerRetry(stages: StageName[], error: string, retryInSeconds = 0, usage?: RunnerUsage): Promise<void> {
    this.rooms.work.noteRunnerRetry(stages, error, retryInSeconds, usage);
  }

  /** Re-dispatches runner work lost to a restart, runs edge stages a `fast` caller left, delivers webhooks, deletes expired rows. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    const { source, work, desk } = this.rooms;
    const watch = await work.dispatcher.watchdog(now);
    await work.runEdgeStages().catch(() => {});
    await desk.deliverDue(source.record(now), now, this.env);
    // Expired rows go; the record and jobs each keep their own TTL.
    this.store.deleteExpired(now);
    source.dropExpired(now);
    desk.deleteExpired(now);
    const next = this.nextDue(watch);
    if (next !== undefined) await this.ctx.storage.setAlarm(Math.max(Date.now() + 10, next));
  }

  /** The earliest moment anything stored here is due: an expiry, a webhook delivery, the watchdog's next look. */
  private nextDue(watch: number | undefined, ...more: (number | undefined)[]): number | undefined {
    const next = [this.store.nextExpiry(), ...this.rooms.desk.nextDue(), watch, ...more].filter((t): t is number => t !== undefined);
    return next.length > 0 ? Math.min(...next) : undefined;
  }

  /**
   * Runner work ended: the alarm moves to what is actually due next (usually the record's expiry). Without
   * this, the watchdog or queue-pickup wake set at dispatch fires after the work is done, and workerd
   * re-creates the evicted object (SQLite, native memory) only to find nothing to do.
   */
  private async rearmAlarm(): Promise<void> {
    const now = Date.now();
    const record = this.rooms.source.record(now);
    // Edge stages a `fast` caller left to the alarm still need it now.
    const due = this.nextDue(this.rooms.work.dispatcher.nextWake(now), record && this.rooms.work.edgePending(record) ? now : undefined);
    const current = await this.ctx.storage.getAlarm();
    if (due === undefined) {
      if (current !== null) await this.ctx.storage.deleteAlarm();
    } else if (current !== due) {
      await this.ctx.storage.setAlarm(Math.max(now + 10, due));
    }
  }

  private async wakeBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }
}
