import { ApiError, publicFields } from "../errors/api-error.ts";
import type { CachedError, RecordStore } from "./record-store.ts";

/**
 * The origin error this object answers until it expires (ERROR_TTL_SECONDS), so a failing origin is not
 * hammered. A first failure is kept in memory only; it is written to storage when it is answered again (a
 * caller retrying), so a URL that fails once costs no storage write and one that callers
 * retry survives the object's eviction.
 */
export class OriginErrorMemory {
  /** The failure remembered last: a retry is answered with a copy, a first failure is this very error. */
  private lastRemembered?: unknown;
  private entry?: { error: CachedError; stored: boolean };

  constructor(private readonly store: RecordStore) {}

  /** Remembers an origin error (a 400 is the caller's, not the origin's: never remembered). */
  remember(err: unknown, ttlSeconds: number, now = Date.now()): void {
    if (!(err instanceof ApiError) || err.status === 400) return;
    this.lastRemembered = err;
    this.entry = { error: { ...publicFields(err), expiresAt: now + ttlSeconds * 1000 }, stored: false };
  }

  /** The unexpired origin error: from memory, else from storage (a retried error written before an eviction). */
  current(now: number): CachedError | undefined {
    if (!this.entry) {
      const stored = this.store.loadError(now);
      if (stored) this.entry = { error: stored, stored: true };
    }
    const error = this.entry?.error;
    return error && error.expiresAt > now ? error : undefined;
  }

  /** Writes the remembered error to storage the first time it is answered again; true when it wrote it. */
  persistOnRepeat(): boolean {
    if (!this.entry || this.entry.stored) return false;
    this.store.saveError(this.entry.error);
    this.entry.stored = true;
    return true;
  }

  /** Whether `err` was answered before (a retry), rather than having just failed. */
  isRepeat(err: unknown): boolean {
    return err !== this.lastRemembered;
  }

  /** The origin answered well: nothing is remembered any more, in memory or storage. */
  clear(): void {
    this.store.clearError();
    this.entry = undefined;
  }
}
