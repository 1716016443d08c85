/**
 * One Idempotency-Key's first request and answer, kept by the Durable Object named after
 * the client and the key (so the key's requests meet whatever URL they name). One row per object.
 *
 * While the first request runs, its row is a claim without an answer that lapses after a lease (the longest a
 * request may take): a request with the same key meanwhile is told the key is in use ("pending"), and a
 * request whose Worker died before answering does not block its key for a day.
 */
export interface IdempotentAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyClaim =
  | { state: "new" }
  | { state: "replay"; answer: IdempotentAnswer }
  | { state: "pending" }
  | { state: "conflict" };

export class IdempotencyStore {
  private ready = false;
  constructor(private readonly raw: SqlStorage) {}

  private get sql(): SqlStorage {
    if (!this.ready) {
      this.raw.exec(`CREATE TABLE IF NOT EXISTS idempotency (id INTEGER PRIMARY KEY CHECK (id = 1), fingerprint TEXT NOT NULL, answer TEXT, expires_at INTEGER NOT NULL)`);
      this.ready = true;
    }
    return this.raw;
  }

  /**
   * The first request with this key claims it for `leaseMs`; later ones replay its answer, are told it is still
   * running (pending), or conflict when their body differs.
   */
  claim(fingerprint: string, now: number, leaseMs: number): IdempotencyClaim {
    const row = this.sql.exec<{ fingerprint: string; answer: string | null; expires_at: number }>(
      `SELECT fingerprint, answer, expires_at FROM idempotency WHERE id = 1`,
    ).toArray()[0];
    if (row && row.expires_at > now) {
      if (row.fingerprint !== fingerprint) return { state: "conflict" };
      return row.answer ? { state: "replay", answer: JSON.parse(row.answer) as IdempotentAnswer } : { state: "pending" };
    }
    this.sql.exec(
      `INSERT INTO idempotency (id, fingerprint, answer, expires_at) VALUES (1, ?, NULL, ?) ON CONFLICT(id) DO UPDATE SET fingerprint = excluded.fingerprint, answer = NULL, expires_at = excluded.expires_at`,
      fingerprint, now + leaseMs,
    );
    return { state: "new" };
  }

  /**
   * The claimed request's answer, kept for `ttlMs` from now; a request that failed on our side (5xx) releases
   * the key instead.
   */
  complete(fingerprint: string, answer: IdempotentAnswer | undefined, now: number, ttlMs: number): void {
    if (!answer) {
      this.sql.exec(`DELETE FROM idempotency WHERE fingerprint = ? AND answer IS NULL`, fingerprint);
      return;
    }
    this.sql.exec(`UPDATE idempotency SET answer = ?, expires_at = ? WHERE id = 1 AND fingerprint = ?`, JSON.stringify(answer), now + ttlMs, fingerprint);
  }

  /** Whether this object ever held a key: an alarm must not create the table. */
  private exists(): boolean {
    return this.ready || this.raw.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'idempotency'`).one().n > 0;
  }

  expiresAt(): number | undefined {
    if (!this.exists()) return undefined;
    return this.sql.exec<{ t: number | null }>(`SELECT MAX(expires_at) AS t FROM idempotency`).toArray()[0]?.t ?? undefined;
  }

  deleteExpired(now: number): void {
    if (!this.exists()) return;
    this.sql.exec(`DELETE FROM idempotency WHERE expires_at <= ?`, now);
  }
}
