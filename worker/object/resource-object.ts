import { DurableObject } from "cloudflare:workers";
import { getConfig, type Config } from "../config/config.ts";
import { ApiError, apiErrorFrom, publicFields, type PublicErrorFields } from "../errors/api-error.ts";
import type { Profile } from "../../shared/schemas/inspect.ts";
import type { JobResource } from "../../shared/schemas/job.ts";
import type { ProviderRecord, ResourceRecord } from "../../shared/schemas/record.ts";
import type { StageName } from "../../shared/schemas/stages.ts";
import { firstInspection } from "../stages/first-inspection.ts";
import { runEdgeImageStages } from "../stages/edge-image-stages.ts";
import { runOembedStage } from "../stages/oembed-stage.ts";
import { provenanceTailPending, runProvenanceTailStage } from "../stages/provenance-tail-stage.ts";
import { nestedInspectionDone, runPageMediaStage, type NestedReply } from "../stages/page-media-stage.ts";
import { detectProvider } from "../../shared/providers/index.ts";
import { normalizeUrl, parseTargetUrl, resourceKey } from "../record/target-url.ts";
import { newJobId } from "../jobs/job-id.ts";
import { JobStore } from "../jobs/job-store.ts";
import { jobView } from "../jobs/job-status.ts";
import { deliverDueWebhooks } from "../webhook/deliver-due.ts";
import { DispatchLedger } from "../dispatch/dispatch-ledger.ts";
import { RunnerDispatcher, type DispatchCaller } from "../dispatch/runner-dispatcher.ts";
import { inspectionBudgetLeft, runnerWorkFor } from "../dispatch/runner-work.ts";
import type { RunnerBudget, RunnerUsage } from "../../shared/shapes/runner.ts";
import { runnerHeadOf } from "../dispatch/runner-head.ts";
import { RecordStore } from "./record-store.ts";
import { OriginErrorMemory } from "./origin-error-memory.ts";
import { RecordWaiters } from "./record-waiters.ts";
import { addTransfer, usageTransfer } from "../record/transfer.ts";
import { tooOldFor } from "../stages/freshness.ts";
import { RevalidationFlight } from "./revalidation.ts";
import { deleteThumbnailsOf } from "./thumbnail-cleanup.ts";
import { previewRevision } from "../enrich/thumbnail-store.ts";
import { IdempotencyStore, type IdempotencyClaim, type IdempotentAnswer } from "./idempotency-store.ts";
import { errorField, logEvent } from "../log/event-log.ts";
import { applyRunnerOutcome, type RunnerOutcome } from "../record/runner-results.ts";
import { inspectAt, type InspectCall, type InspectReply, type JobReply, type PublicError, type Revalidation } from "./resource-rpc.ts";
import { stagesForEdge, stagesForRunner } from "./stage-plan.ts";
import { failStages, isComplete, markQueued, markStarted, noteRetry, pendingStages, registerOptIn, stillPending, unmarkQueued } from "../record/stage-state.ts";

type CurrentRecord = { record: ResourceRecord; responseSource: "fresh" | "cache" | "inflight"; revalidation?: Revalidation };

/**
 * One object per resource (named by the normalised URL). Owns the canonical record and its jobs in SQLite;
 * answers from the record while fresh, lets concurrent callers join the probe under way (single-flight),
 * runs edge stages itself, dispatches heavy stages to the media runner (directly when a caller waits, else
 * through the queue; worker/dispatch), wakes `full` waiters when the record changes, and from its alarm
 * re-dispatches runner work lost to a restart and delivers webhooks. Errors cross the RPC boundary as values.
 *
 * The record lives in memory: read from SQLite once per object lifetime, written back on every change, so
 * every caller and every stage works on the same copy. Stages are orchestrated generically through the
 * registry (stage-plan.ts) and the state machine (stage-state.ts).
 */
export class ResourceObject extends DurableObject<Env> {
  private readonly store: RecordStore;
  private readonly jobs: JobStore;
  /** Used only by the objects named `idempotency:<digest of caller and key>` (worker/http/idempotency.ts). */
  private readonly idempotency: IdempotencyStore;
  private inflight?: Promise<ResourceRecord>;
  private readonly revalidation: RevalidationFlight;
  private edgeWork?: Promise<void>;
  private pageMediaWork?: Promise<void>;
  /** An image's bytes read from its start (head and header reads), kept until the edge stages have used them. */
  private imageHead?: Uint8Array;
  /** The bytes read from the start, kept until the first runner dispatch hands them over (the runner caps them). */
  private probeHead?: Uint8Array;
  /** The bytes read at the file's end, handed over with the head. */
  private probeTail?: { offset: number; bytes: Uint8Array };
  private readonly waiters = new RecordWaiters();
  /** The record as last loaded or saved; `null` when storage holds none, undefined before the first load. */
  private memory?: ResourceRecord | null;
  private readonly dispatcher: RunnerDispatcher;
  private readonly originError: OriginErrorMemory;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new RecordStore(ctx.storage.sql);
    this.jobs = new JobStore(ctx.storage.sql);
    this.idempotency = new IdempotencyStore(ctx.storage.sql);
    this.originError = new OriginErrorMemory(this.store);
    this.revalidation = new RevalidationFlight({
      config: () => this.config,
      keep: (record) => {
        const now = Date.now();
        record.validatedAt = now;
        record.updatedAt = now;
        record.expiresAt = now + this.config.RECORD_TTL_SECONDS * 1000;
        this.save(record);
      },
      reprobe: (stored, call) => this.reprobe(stored, call),
    });
    this.dispatcher = new RunnerDispatcher(new DispatchLedger(ctx.storage.sql), {
      env,
      config: () => this.config,
      stillPending: (stages) => {
        const record = this.record();
        return record ? stillPending(record, stages) : [];
      },
      work: (stages) => {
        const record = this.record();
        return record ? runnerWorkFor(record, stages) : undefined;
      },
      takeHead: () => {
        const record = this.record();
        const head = record ? runnerHeadOf(record, this.probeHead, this.probeTail) : undefined;
        this.probeHead = undefined;
        this.probeTail = undefined;
        return head;
      },
      apply: (outcome) => this.applyRunner(outcome),
      noteRetry: (stages, reason, usage) => {
        const record = this.record();
        if (!record) return;
        noteRetry(record, stages, reason);
        if (usage) addTransfer(record, usageTransfer(usage));
        this.save(record);
      },
      wakeAt: (at) => this.scheduleAlarm(at),
    });
  }

  private get config(): Config {
    return getConfig(this.env);
  }

  /** The fresh record, loaded from SQLite only the first time. */
  private record(now = Date.now()): ResourceRecord | undefined {
    if (this.memory === undefined) this.memory = this.store.loadRecord(now) ?? null;
    return this.memory && this.memory.expiresAt > now ? this.memory : undefined;
  }

  private save(record: ResourceRecord): void {
    this.memory = record;
    this.store.saveRecord(record);
  }

  private forget(): void {
    this.memory = null;
    this.store.deleteRecord();
  }

  async inspect(call: InspectCall): Promise<InspectReply> {
    try {
      const { record: first, responseSource, revalidation } = await this.currentRecord(call);
      if (call.optIn && registerOptIn(first, call.optIn).length > 0) this.save(first);
      // Runner work starts first, so that it runs while the edge stages do. A waiting caller gets a direct call.
      const via = call.profile === "fast" || call.profile === "embed" ? "queue" : this.config.RUNNER_DISPATCH;
      const background = this.revalidation.startsBackgroundWork(first, call.profile);
      if (background) await this.queueRunnerStages(this.record() ?? first, via, { ...(call.requestId ? { requestId: call.requestId } : {}), ...(call.client ? { client: call.client } : {}) });
      await this.runPageMedia(first, call);
      if (call.profile !== "fast") await this.runEdgeStages();
      let record = this.record() ?? first;
      if (call.profile === "fast" && background && this.edgePending(record)) await this.scheduleAlarm(Date.now());
      // A nested call waits only for what it can get: never for the page:media stage it does not run.
      const done = call.nested ? nestedInspectionDone : isComplete;
      if (call.profile === "full" && !done(record)) {
        await this.waitForCompletion(this.config.FULL_WAIT_TIMEOUT_MS, done);
      }
      record = this.record() ?? record;
      const complete = isComplete(record);
      // A nested call has no caller to hand a job to.
      const wantsJob = call.webhookUrl !== undefined || (!complete && !call.nested && call.profile !== "fast" && call.profile !== "embed");
      let job: { id: string; status: "processing" | "complete" } | undefined;
      // One job per (resource, webhookUrl, caller URL) for the job's lifetime: repeats join it.
      const joined = call.webhookUrl !== undefined ? this.jobs.existingForWebhook(call.webhookUrl, call.callerUrl, Date.now()) : undefined;
      if (joined) {
        job = { id: joined.id, status: joined.completed_at !== null || complete ? "complete" : "processing" };
      } else if (wantsJob) {
        const id = newJobId(this.ctx.id.toString());
        this.jobs.create(id, Date.now(), this.config.JOB_TTL_SECONDS * 1000, call.webhookUrl, pendingStages(record), call.callerUrl);
        job = { id, status: complete ? "complete" : "processing" };
        if (complete) await this.completeJobs();
      }
      return { ok: true, record, responseSource, ...(job ? { job } : {}), ...(revalidation ? { revalidation } : {}) };
    } catch (err) {
      const error = publicError(err, call);
      const remembered = this.originError.current(Date.now());
      const same = remembered && remembered.status === error.status && remembered.code === error.code && remembered.message === error.message;
      return { ok: false, error, ...(same ? { rememberedUntil: remembered.expiresAt, repeated: this.originError.isRepeat(err) } : {}) };
    }
  }

  /**
   * Idempotency-Key: claim it for a request body's fingerprint, for `leaseMs` while the request runs (the key's
   * row is deleted by the alarm at expiry).
   */
  async claimIdempotency(fingerprint: string, leaseMs: number): Promise<IdempotencyClaim> {
    const claim = this.idempotency.claim(fingerprint, Date.now(), leaseMs);
    if (claim.state === "new") await this.scheduleAlarm(Date.now() + leaseMs);
    return claim;
  }

  /** The claimed request's answer, replayed for `ttlMs` (undefined: the key is released). */
  async completeIdempotency(fingerprint: string, answer: IdempotentAnswer | undefined, ttlMs: number): Promise<void> {
    // The lease's alarm (set by the claim) finds the row unexpired and moves itself to the new expiry.
    this.idempotency.complete(fingerprint, answer, Date.now(), ttlMs);
  }

  async getJob(jobId: string): Promise<JobReply> {
    const now = Date.now();
    const row = this.jobs.get(jobId, now);
    if (!row) return { found: false };
    const stored = this.record(now);
    // The job's result shows its own caller's URL.
    const record = stored && row.caller_url ? { ...stored, url: row.caller_url } : stored;
    const job = jobView(row, record);
    this.jobs.raiseProgress(row.id, job.progress);
    return { found: true, job, ...(record ? { record } : {}) };
  }

  /** Stages of `stages` still pending: the queue consumer skips a message whose work is already done. */
  async stillPending(stages: StageName[]): Promise<StageName[]> {
    const record = this.record();
    return record ? stillPending(record, stages) : [];
  }

  /**
   * The runner's answer for a message. A category revision can register stages that the runner has not been
   * asked for yet (audio that turned out to be video gets previews): those are queued at once.
   */
  async applyRunner(outcome: RunnerOutcome): Promise<void> {
    const record = this.record();
    if (!record) return;
    // A failed job's spending counts whatever its stages became (another call may have ended them).
    if (outcome.usage) addTransfer(record, usageTransfer(outcome.usage));
    if (!applyRunnerOutcome(record, outcome)) {
      if (outcome.usage) this.save(record);
      return;
    }
    const r = outcome.result;
    if (r) addTransfer(record, { bytes: r.bytesFetched ?? 0, requests: r.requests ?? 0, redirects: r.redirects ?? 0, engineMs: r.engineMs ?? 0 });
    await this.recordChanged(record);
    await this.queueRunnerStages(record, this.config.RUNNER_DISPATCH);
    await this.rearmAlarm();
  }

  /**
   * The consumer is about to call the runner for these stages (job status `active`). Returns what the
   * inspection has left of its budget now (a retried message carries the budget of its first send).
   */
  async markRunnerStarted(stages: StageName[]): Promise<RunnerBudget | undefined> {
    const record = this.record();
    if (!record) return undefined;
    const now = Date.now();
    markStarted(record, stages, now);
    this.save(record);
    this.dispatcher.noteQueueProgress(stages, { startedAt: now });
    return inspectionBudgetLeft(record);
  }

  async noteRunnerRetry(stages: StageName[], error: string, retryInSeconds = 0, usage?: RunnerUsage): Promise<void> {
    const record = this.record();
    if (!record) return;
    noteRetry(record, stages, error);
    if (usage) addTransfer(record, usageTransfer(usage));
    this.save(record);
    this.dispatcher.noteQueueProgress(stages, { retryInSeconds });
  }

  /** A page's named media, inspected before the page's answer (once; concurrent callers share the work). */
  private async runPageMedia(record: ResourceRecord, call: InspectCall): Promise<void> {
    if (call.nested || record.stages["page:media"]?.state !== "pending") return;
    this.pageMediaWork ??= runPageMediaStage(record, (url, profile) => this.inspectNested(url, profile, record.normalizedUrl), call.profile === "full" ? "full" : "fast")
      .then(() => this.recordChanged(record))
      .finally(() => {
        this.pageMediaWork = undefined;
      });
    await this.pageMediaWork;
  }

  /** Another URL inspected by its own Durable Object, exactly as a caller's inspection would route it. */
  private async inspectNested(raw: string, profile: "fast" | "full", self: string): Promise<NestedReply> {
    let url: URL;
    try {
      url = parseTargetUrl(raw);
    } catch (err) {
      return { ok: false, reason: err instanceof ApiError ? `${err.code}: ${err.publicMessage}` : "invalid URL" };
    }
    const match = detectProvider(url);
    const normalizedUrl = match ? match.canonicalUrl : normalizeUrl(url);
    if (normalizedUrl === self) return { ok: false, reason: "the page names itself" };
    let reply: InspectReply;
    try {
      reply = await inspectAt(this.env, normalizedUrl, {
        key: await resourceKey(normalizedUrl), url: url.href, normalizedUrl, profile, nested: true, ...(match ? { provider: match } : {}),
      });
    } catch (err) {
      // The other object failing (reset, overload) fails this stage, not the page.
      return { ok: false, reason: `INTERNAL_ERROR: the named media could not be inspected (${String(err).slice(0, 80)})` };
    }
    return reply.ok ? { ok: true, record: reply.record } : { ok: false, reason: `${reply.error.code}: ${reply.error.message}` };
  }

  /** Fresh record from storage, the probe under way, or a new probe; one older than the caller's maxAge is revalidated. */
  private async currentRecord(call: InspectCall): Promise<CurrentRecord> {
    const now = Date.now();
    const stored = this.record(now);
    // One revalidation however many callers ask at once (revalidation.ts).
    if (stored && tooOldFor(stored, call.maxAge, now)) return this.revalidation.join(stored, call);
    if (stored) {
      await this.retryFailedOembed(stored, now);
      return { record: stored, responseSource: "cache" };
    }
    const cachedError = this.originError.current(now);
    if (cachedError) {
      // The written row goes at its expiry (the alarm deletes expired rows), so a retried failing URL leaves
      // no storage behind; a URL that failed once wrote nothing and needs no wake.
      if (this.originError.persistOnRepeat()) await this.scheduleAlarm(cachedError.expiresAt);
      throw apiErrorFrom(cachedError);
    }
    if (this.inflight) return { record: await this.inflight, responseSource: "inflight" };
    this.inflight = this.probe(call);
    try {
      return { record: await this.inflight, responseSource: "fresh" };
    } finally {
      this.inflight = undefined;
    }
  }

  /**
   * A revalidation found the file changed (or could not ask): the URL is inspected anew, and the old record's
   * previews go (the new record's have new URLs: their revision is the new file's, see previewRevision).
   */
  private async reprobe(stored: ResourceRecord, call: InspectCall): Promise<ResourceRecord> {
    this.forget();
    this.inflight ??= this.probe(call).then((probed) => this.revalidation.noteReprobed(probed));
    let record: ResourceRecord | undefined;
    try {
      record = await this.inflight;
      return record;
    } finally {
      this.inflight = undefined;
      // After the probe, so the new revision is known and kept (a failed probe keeps nothing).
      await this.deletePreviews(stored.key, record && previewRevision(record));
    }
  }

  /** Deletes the resource's stored previews but `keepRevision`'s; a failure leaves them (logged), never fails the answer. */
  private async deletePreviews(key: string, keepRevision: string | undefined): Promise<void> {
    await deleteThumbnailsOf(this.env.THUMBNAILS, key, keepRevision).catch((err: unknown) => {
      logEvent("error", "stale previews not deleted", { resource: key, error: errorField(err) });
    });
  }

  private async probe(call: InspectCall): Promise<ResourceRecord> {
    // An expired record still in memory: its previews go if the file turned out to be another one.
    const previous = this.memory ?? undefined;
    try {
      const { record, imageHead, head, tail } = await firstInspection(call, this.config);
      this.imageHead = imageHead;
      if (record.category === "video" || record.category === "audio" || record.category === "image") {
        this.probeHead = head;
        this.probeTail = tail;
      }
      // Provider-native data (title, thumbnail) is wanted even by `fast`, so oEmbed runs before the first answer.
      if (record.provider) await runOembedStage(record, this.config);
      this.save(record);
      this.originError.clear();
      await this.scheduleAlarm(record.expiresAt);
      if (previous && previewRevision(previous) !== previewRevision(record)) await this.deletePreviews(record.key, previewRevision(record));
      return record;
    } catch (err) {
      this.rememberError(err);
      throw err;
    }
  }

  /**
   * A provider's oEmbed failure (outage, timeout) is an origin error: remembered for ERROR_TTL_SECONDS, not for
   * the record's lifetime. After that, the next request tries the provider again.
   */
  private async retryFailedOembed(record: ResourceRecord, now: number): Promise<void> {
    const stage = record.stages.oembed;
    if (!record.provider || stage?.state !== "failed") return;
    if (now - (stage.finishedAt ?? 0) < this.config.ERROR_TTL_SECONDS * 1000) return;
    record.stages.oembed = { state: "pending", attempts: stage.attempts + 1 };
    this.save(record); // concurrent callers now see it pending and do not retry too
    try {
      await runOembedStage(record, this.config);
    } catch (err) {
      // 404 now: the media is gone. Forget the record so the error is answered (and cached briefly).
      this.forget();
      this.rememberError(err);
      throw err;
    }
    this.save(record);
  }

  /** Origin errors are cached briefly (ERROR_TTL_SECONDS) so a failing origin is not hammered. */
  private rememberError(err: unknown): void {
    this.originError.remember(err, this.config.ERROR_TTL_SECONDS);
  }

  private edgePending(record: ResourceRecord): boolean {
    return stagesForEdge(record, this.config).length > 0 || provenanceTailPending(record);
  }

  /** Runs the edge image stages once, however many callers ask at the same time. */
  private runEdgeStages(): Promise<void> {
    this.edgeWork ??= this.edgeStages().finally(() => {
      this.edgeWork = undefined;
    });
    return this.edgeWork;
  }

  private async edgeStages(): Promise<void> {
    const record = this.record();
    if (!record) return;
    if (provenanceTailPending(record)) {
      await runProvenanceTailStage(record, this.config);
      await this.recordChanged(record);
    }
    const stages = stagesForEdge(record, this.config);
    if (stages.length === 0) return;
    try {
      const run = await runEdgeImageStages(record, stages, this.config, this.env.THUMBNAILS, this.imageHead);
      this.imageHead = undefined;
      await this.recordChanged(record);
      // Refused at decode time (format or size found only then): the runner takes over.
      if (run === "needs-runner") await this.queueRunnerStages(record, this.config.RUNNER_DISPATCH);
    } catch (err) {
      if (err instanceof ApiError && (err.status === 413 || err.status === 404)) {
        // The file turned out to be over the cap (or gone) although its headers said otherwise.
        this.forget();
        this.rememberError(err);
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
  private async queueRunnerStages(record: ResourceRecord, via: "direct" | "queue", caller: DispatchCaller = {}): Promise<void> {
    const now = Date.now();
    const stages = stagesForRunner(record, this.config, now);
    if (stages.length === 0 || record.category === "embedded" || record.category === "webpage") return;
    // Mark the stages queued before the first await, so a concurrent caller sees them taken and sends nothing.
    markQueued(record, stages, now, "runner");
    if (via === "direct") markStarted(record, stages, now);
    this.save(record);
    try {
      await this.dispatcher.dispatch(stages, via, 1, caller);
    } catch (err) {
      const current = this.record();
      if (current) {
        unmarkQueued(current, stages, now);
        this.save(current);
      }
      throw err;
    }
  }

  /** Persists a changed record, wakes `full` waiters and, once complete, completes jobs and queues webhooks. */
  private async recordChanged(record: ResourceRecord): Promise<void> {
    const complete = isComplete(record);
    if (complete) record.timings.total = Math.max(record.timings.total ?? 0, Date.now() - record.createdAt);
    if (complete) this.probeHead = this.probeTail = undefined; // no runner call left to hand them to
    this.save(record);
    if (complete) await this.completeJobs();
    this.waiters.wake();
  }

  private async completeJobs(): Promise<void> {
    const now = Date.now();
    const withWebhook = this.jobs.completeOpen(now, this.config.JOB_TTL_SECONDS * 1000);
    for (const job of withWebhook) this.jobs.scheduleDelivery(job.id, `msg_${job.id.slice(-32)}`, now);
    if (withWebhook.length > 0) await this.scheduleAlarm(now);
  }

  /** Resolves when every stage is done or the time is up; woken by recordChanged, no polling. */
  private waitForCompletion(timeoutMs: number, done: (record: ResourceRecord) => boolean = isComplete): Promise<void> {
    return this.waiters.waitFor(timeoutMs, () => {
      const record = this.record();
      return !record || done(record);
    });
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    const watch = await this.dispatcher.watchdog(now);
    await this.runEdgeStages().catch(() => {});
    await deliverDueWebhooks(this.jobs, this.record(now), this.config, now, this.env);
    // Expired rows go; the record and jobs each keep their own TTL.
    this.store.deleteExpired(now);
    if (this.memory && this.memory.expiresAt <= now) this.memory = null;
    this.jobs.deleteExpired(now);
    this.idempotency.deleteExpired(now);
    const next = this.nextDue(watch, this.idempotency.expiresAt());
    if (next !== undefined) await this.ctx.storage.setAlarm(Math.max(Date.now() + 10, next));
  }

  /** The earliest moment anything stored here is due: an expiry, a webhook delivery, the watchdog's next look. */
  private nextDue(watch: number | undefined, ...more: (number | undefined)[]): number | undefined {
    const next = [this.store.nextExpiry(), this.jobs.nextExpiry(), this.jobs.nextDeliveryAt(), watch, ...more].filter((t): t is number => t !== undefined);
    return next.length > 0 ? Math.min(...next) : undefined;
  }

  /**
   * Runner work ended: the alarm moves to what is actually due next (usually the record's expiry). Without
   * this, the watchdog or queue-pickup wake set at dispatch fires after the work is done, and workerd
   * re-creates the evicted object (SQLite, native memory) only to find nothing to do.
   */
  private async rearmAlarm(): Promise<void> {
    const now = Date.now();
    const record = this.record(now);
    // Edge stages a `fast` caller left to the alarm still need it now.
    const due = this.nextDue(this.dispatcher.nextWake(now), record && this.edgePending(record) ? now : undefined);
    const current = await this.ctx.storage.getAlarm();
    if (due === undefined) {
      if (current !== null) await this.ctx.storage.deleteAlarm();
    } else if (current !== due) {
      await this.ctx.storage.setAlarm(Math.max(now + 10, due));
    }
  }

  private async scheduleAlarm(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }
}

function publicError(err: unknown, call: InspectCall): PublicError {
  if (err instanceof ApiError) return publicFields(err);
  logEvent("error", "resource object failure", { resource: call.key, ...(call.requestId ? { requestId: call.requestId } : {}), error: errorField(err) });
  return { status: 500, code: "INTERNAL_ERROR", message: "The inspection failed unexpectedly." };
}
