import type { Config } from "../config/config.ts";
import { apiErrorFrom } from "../errors/api-error.ts";
import type { Profile } from "../../shared/schemas/inspect.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { firstInspection } from "../stages/first-inspection.ts";
import { runOembedStage } from "../stages/oembed-stage.ts";
import { tooOldFor } from "../stages/freshness.ts";
import { deletePreviewsOf, previewRevision } from "../previews/preview-store.ts";
import { errorField, logEvent } from "../log/event-log.ts";
import type { AlarmClock } from "./alarm-clock.ts";
import { OriginErrorMemory } from "./origin-error-memory.ts";
import type { RecordStore } from "./record-store.ts";
import type { InspectCall, Revalidation } from "./resource-rpc.ts";
import { RevalidationFlight } from "./revalidation.ts";

export type CurrentRecord = { record: ResourceRecord; responseSource: "fresh" | "cache" | "inflight"; revalidation?: Revalidation };

/** Bytes the first inspection read, kept in memory until the stages that can use them have. */
export interface ProbeBytes {
  /** An image's bytes read from its start (head and header reads), kept until the edge stages have used them. */
  image?: Uint8Array;
  /** The bytes read from the start, kept until the first runner dispatch hands them over (the runner caps them). */
  head?: Uint8Array;
  /** The bytes read at the file's end, handed over with the head. */
  tail?: { offset: number; bytes: Uint8Array };
}

/**
 * Where the resource object's record comes from: memory, SQLite, a revalidation with the origin, or a probe that
 * concurrent callers join (single-flight). The record lives in memory: read from SQLite once per object lifetime,
 * written back on every change, so every caller and every stage works on the same copy. Origin errors are
 * remembered here too, and a changed file's old previews deleted.
 */
export class RecordSource {
  /** The record as last loaded or saved; `null` when storage holds none, undefined before the first load. */
  private memory?: ResourceRecord | null;
  private inflight?: Promise<ResourceRecord>;
  private readonly revalidation: RevalidationFlight;
  readonly originError: OriginErrorMemory;
  readonly bytes: ProbeBytes = {};

  constructor(
    private readonly store: RecordStore,
    private readonly env: Env,
    private readonly config: () => Config,
    private readonly alarm: AlarmClock,
  ) {
    this.originError = new OriginErrorMemory(store);
    this.revalidation = new RevalidationFlight({
      config,
      keep: (record) => {
        const now = Date.now();
        record.validatedAt = now;
        record.updatedAt = now;
        record.expiresAt = now + this.config().RECORD_TTL_SECONDS * 1000;
        this.save(record);
      },
      reprobe: (stored, call) => this.reprobe(stored, call),
    });
  }

  /** The fresh record, loaded from SQLite only the first time. */
  record(now = Date.now()): ResourceRecord | undefined {
    if (this.memory === undefined) this.memory = this.store.loadRecord(now) ?? null;
    return this.memory && this.memory.expiresAt > now ? this.memory : undefined;
  }

  save(record: ResourceRecord): void {
    this.memory = record;
    this.store.saveRecord(record);
  }

  forget(): void {
    this.memory = null;
    this.store.deleteRecord();
  }

  /** The alarm deleted expired rows: a record in memory that expired goes with them. */
  dropExpired(now: number): void {
    if (this.memory && this.memory.expiresAt <= now) this.memory = null;
  }

  /** Whether a caller of `profile` starts background work on `record` (revalidation.ts). */
  startsBackgroundWork(record: ResourceRecord, profile: Profile): boolean {
    return this.revalidation.startsBackgroundWork(record, profile);
  }

  /** Fresh record from storage, the probe under way, or a new probe; one older than the caller's maxAge is revalidated. */
  async current(call: InspectCall): Promise<CurrentRecord> {
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
      if (this.originError.persistOnRepeat()) await this.alarm.wakeBy(cachedError.expiresAt);
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

  /** Origin errors are cached briefly (ERROR_TTL_SECONDS) so a failing origin is not hammered. */
  rememberError(err: unknown): void {
    this.originError.remember(err, this.config().ERROR_TTL_SECONDS);
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
    await deletePreviewsOf(this.env, key, keepRevision).catch((err: unknown) => {
      logEvent("error", "stale previews not deleted", { resource: key, error: errorField(err) });
    });
  }

  private async probe(call: InspectCall): Promise<ResourceRecord> {
    // An expired record still in memory: its previews go if the file turned out to be another one.
    const previous = this.memory ?? undefined;
    try {
      const { record, imageHead, head, tail } = await firstInspection(call, this.config());
      this.bytes.image = imageHead;
      if (record.category === "video" || record.category === "audio" || record.category === "image") {
        this.bytes.head = head;
        this.bytes.tail = tail;
      }
      // Provider-native data (title, thumbnail) is wanted even by `fast`, so oEmbed runs before the first answer.
      if (record.provider) await runOembedStage(record, this.config());
      this.save(record);
      this.originError.clear();
      await this.alarm.wakeBy(record.expiresAt);
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
    if (now - (stage.finishedAt ?? 0) < this.config().ERROR_TTL_SECONDS * 1000) return;
    record.stages.oembed = { state: "pending", attempts: stage.attempts + 1 };
    this.save(record); // concurrent callers now see it pending and do not retry too
    try {
      await runOembedStage(record, this.config());
    } catch (err) {
      // 404 now: the media is gone. Forget the record so the error is answered (and cached briefly).
      this.forget();
      this.rememberError(err);
      throw err;
    }
    this.save(record);
  }
}
