import { DurableObject } from "cloudflare:workers";
import { getConfig, type Config } from "../config.ts";
import { ApiError } from "../http/api-error.ts";
import type { Profile } from "../../shared/schemas/inspect.ts";
import type { ProviderRecord, ResourceRecord } from "../../shared/schemas/record.ts";
import { firstInspection } from "../inspect/first-inspection.ts";
import { isEdgeImage, runEdgeImageStages } from "../enrich/edge-image-stages.ts";
import { pendingStages } from "./create-record.ts";
import { RecordStore } from "./record-store.ts";

export interface InspectCall {
  key: string;
  url: string;
  normalizedUrl: string;
  provider?: ProviderRecord;
  profile: Profile;
  webhookUrl?: string;
}

export type PublicError = { status: number; code: string; message: string };
export type InspectReply =
  | { ok: true; record: ResourceRecord; responseSource: "fresh" | "cache" | "inflight" }
  | { ok: false; error: PublicError };

/**
 * One object per resource (named by the normalised URL). Owns the canonical record in SQLite, answers from it
 * while fresh, lets concurrent callers join the probe already under way (single-flight), and runs or
 * schedules the enrichment stages. Errors cross the RPC boundary as values, never as thrown objects.
 */
export class ResourceObject extends DurableObject<Env> {
  private readonly store: RecordStore;
  private inflight?: Promise<ResourceRecord>;
  private edgeWork?: Promise<void>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new RecordStore(ctx.storage.sql);
  }

  private get config(): Config {
    return getConfig(this.env);
  }

  async inspect(call: InspectCall): Promise<InspectReply> {
    try {
      const { record, responseSource } = await this.currentRecord(call);
      if (call.profile !== "fast") await this.runEdgeStages();
      else if (this.edgePending(record)) await this.ctx.storage.setAlarm(Date.now());
      return { ok: true, record: this.store.loadRecord(Date.now()) ?? record, responseSource };
    } catch (err) {
      return { ok: false, error: publicError(err) };
    }
  }

  /** Fresh record from storage, the probe under way, or a new probe. */
  private async currentRecord(call: InspectCall): Promise<{ record: ResourceRecord; responseSource: "fresh" | "cache" | "inflight" }> {
    const now = Date.now();
    const stored = this.store.loadRecord(now);
    if (stored) return { record: stored, responseSource: "cache" };
    const cachedError = this.store.loadError(now);
    if (cachedError) throw new ApiError(cachedError.status as 400, cachedError.code as "BAD_GATEWAY", cachedError.message);
    if (this.inflight) return { record: await this.inflight, responseSource: "inflight" };
    this.inflight = this.probe(call);
    try {
      return { record: await this.inflight, responseSource: "fresh" };
    } finally {
      this.inflight = undefined;
    }
  }

  private async probe(call: InspectCall): Promise<ResourceRecord> {
    try {
      const record = await firstInspection(call, this.config);
      this.store.saveRecord(record);
      this.store.clearError();
      await this.scheduleCleanup();
      return record;
    } catch (err) {
      this.rememberError(err);
      throw err;
    }
  }

  /** Origin errors are cached briefly (ERROR_TTL_SECONDS) so a failing origin is not hammered. */
  private rememberError(err: unknown): void {
    if (!(err instanceof ApiError) || err.status === 400) return;
    const expiresAt = Date.now() + this.config.ERROR_TTL_SECONDS * 1000;
    this.store.saveError({ status: err.status, code: err.code, message: err.publicMessage, expiresAt });
  }

  private edgePending(record: ResourceRecord): boolean {
    return isEdgeImage(record, this.config) && pendingStages(record).some((s) => s.startsWith("preview:"));
  }

  /** Runs the edge image stages once, however many callers ask at the same time. */
  private runEdgeStages(): Promise<void> {
    this.edgeWork ??= this.edgeStages().finally(() => {
      this.edgeWork = undefined;
    });
    return this.edgeWork;
  }

  private async edgeStages(): Promise<void> {
    const record = this.store.loadRecord(Date.now());
    if (!record || !this.edgePending(record)) return;
    try {
      await runEdgeImageStages(record, this.config, this.env.THUMBNAILS);
      record.timings.total = Math.max(record.timings.total ?? 0, Date.now() - record.createdAt);
      this.store.saveRecord(record);
    } catch (err) {
      if (err instanceof ApiError && (err.status === 413 || err.status === 404)) {
        // The file turned out to be over the cap (or gone) although its headers said otherwise.
        this.store.deleteRecord();
        this.rememberError(err);
      }
      throw err;
    }
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    await this.runEdgeStages().catch(() => {});
    const next = this.store.nextExpiry();
    if (next !== undefined && next <= now) {
      this.store.deleteRecord();
      this.store.clearError();
    }
    await this.scheduleCleanup();
  }

  private async scheduleCleanup(): Promise<void> {
    const next = this.store.nextExpiry();
    const current = await this.ctx.storage.getAlarm();
    if (next !== undefined && (current === null || current > next)) await this.ctx.storage.setAlarm(next);
  }
}

function publicError(err: unknown): PublicError {
  if (err instanceof ApiError) return { status: err.status, code: err.code, message: err.publicMessage };
  console.error("resource object failure", err);
  return { status: 500, code: "INTERNAL_ERROR", message: "The inspection failed unexpectedly." };
}
