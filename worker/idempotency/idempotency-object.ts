import { DurableObject } from "cloudflare:workers";
import { IdempotencyStore, type IdempotencyClaim, type IdempotentAnswer } from "./idempotency-store.ts";

/**
 * One Idempotency-Key of one caller (named `idempotency:<digest of caller and key>`, service/idempotency-keys.ts):
 * its claim while the first request runs and that request's answer, in SQLite until the alarm deletes it at its
 * expiry. A class of its own, so resource objects never carry key rows and a key object never carries a record.
 * The only file that touches this object's storage and alarm.
 */
export class IdempotencyObject extends DurableObject<Env> {
  private readonly keys: IdempotencyStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.keys = new IdempotencyStore(ctx.storage.sql);
  }

  /** Claims the key for a request body's fingerprint, for `leaseMs` while the request runs. */
  async claim(fingerprint: string, leaseMs: number): Promise<IdempotencyClaim> {
    const claim = this.keys.claim(fingerprint, Date.now(), leaseMs);
    if (claim.state === "new") await this.wakeBy(Date.now() + leaseMs);
    return claim;
  }

  /** The claimed request's answer, replayed for `ttlMs` (undefined: the key is released). */
  async complete(fingerprint: string, answer: IdempotentAnswer | undefined, ttlMs: number): Promise<void> {
    // The lease's alarm (set by the claim) finds the row unexpired and moves itself to the new expiry.
    this.keys.complete(fingerprint, answer, Date.now(), ttlMs);
  }

  override async alarm(): Promise<void> {
    this.keys.deleteExpired(Date.now());
    const next = this.keys.expiresAt();
    if (next !== undefined) await this.ctx.storage.setAlarm(Math.max(Date.now() + 10, next));
  }

  private async wakeBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }
}
