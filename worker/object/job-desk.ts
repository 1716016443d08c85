import type { Config } from "../config/config.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { newJobId } from "../jobs/job-id.ts";
import { jobView } from "../jobs/job-status.ts";
import type { JobStore } from "../jobs/job-store.ts";
import { isComplete, pendingStages } from "../record/stage-state.ts";
import { deliverDueWebhooks } from "../webhook/deliver-due.ts";
import type { AlarmClock } from "./alarm-clock.ts";
import type { InspectCall, JobReply } from "./resource-rpc.ts";

export type OpenedJob = { id: string; status: "processing" | "complete" };

/**
 * The resource object's jobs: one opened for a caller that needs one, joined by repeats, completed with the
 * record (their webhooks queued for the alarm), shown by GET /api/v1/job/{id}. Handed its job table, the
 * object's id and the alarm by the shell, so jobs/ stays a low layer of rows.
 */
export class JobDesk {
  constructor(
    private readonly jobs: JobStore,
    private readonly objectId: string,
    private readonly config: () => Config,
    private readonly alarm: AlarmClock,
  ) {}

  /**
   * The job of this call, if it needs one: a webhook registration always (one job per resource, webhook URL and
   * caller URL for the job's lifetime: repeats join it), else a standard or full caller whose record is still
   * incomplete. A nested call has no caller to hand a job to.
   */
  async open(call: InspectCall, record: ResourceRecord): Promise<OpenedJob | undefined> {
    const complete = isComplete(record);
    const wantsJob = call.webhookUrl !== undefined || (!complete && !call.nested && call.profile !== "fast" && call.profile !== "embed");
    const joined = call.webhookUrl !== undefined ? this.jobs.existingForWebhook(call.webhookUrl, call.callerUrl, Date.now()) : undefined;
    if (joined) return { id: joined.id, status: joined.completed_at !== null || complete ? "complete" : "processing" };
    if (!wantsJob) return undefined;
    const id = newJobId(this.objectId);
    this.jobs.create(id, Date.now(), this.config().JOB_TTL_SECONDS * 1000, call.webhookUrl, pendingStages(record), call.callerUrl);
    const job: OpenedJob = { id, status: complete ? "complete" : "processing" };
    if (complete) await this.completeOpen();
    return job;
  }

  /** The record is complete: every open job completes, and those with a webhook get a delivery (by the alarm). */
  async completeOpen(): Promise<void> {
    const now = Date.now();
    const withWebhook = this.jobs.completeOpen(now, this.config().JOB_TTL_SECONDS * 1000);
    for (const job of withWebhook) this.jobs.scheduleDelivery(job.id, `msg_${job.id.slice(-32)}`, now);
    if (withWebhook.length > 0) await this.alarm.wakeBy(now);
  }

  /** A job and the record it reports on (`recordAt`: the object's fresh record, if any, read only for a known job). */
  view(jobId: string, now: number, recordAt: (now: number) => ResourceRecord | undefined): JobReply {
    const row = this.jobs.get(jobId, now);
    if (!row) return { found: false };
    const stored = recordAt(now);
    // The job's result shows its own caller's URL.
    const record = stored && row.caller_url ? { ...stored, url: row.caller_url } : stored;
    const job = jobView(row, record);
    this.jobs.raiseProgress(row.id, job.progress);
    return { found: true, job, ...(record ? { record } : {}) };
  }

  /** The alarm's part: webhooks due now are delivered. */
  deliverDue(record: ResourceRecord | undefined, now: number, env: Env): Promise<void> {
    return deliverDueWebhooks(this.jobs, record, this.config(), now, env);
  }

  deleteExpired(now: number): void {
    this.jobs.deleteExpired(now);
  }

  /** When the jobs next need the alarm: an expiry or a webhook delivery. */
  nextDue(): (number | undefined)[] {
    return [this.jobs.nextExpiry(), this.jobs.nextDeliveryAt()];
  }
}
