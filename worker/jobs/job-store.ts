export type JobRow = {
  id: string;
  created_at: number;
  completed_at: number | null;
  webhook_url: string | null;
  expires_at: number;
  /** The URL as this job's caller sent it: shown only in this job's result and webhook. */
  caller_url: string | null;
  /** JSON list of the stages the job waits for (pending at creation); null on rows written before it existed. */
  stages: string | null;
  /** Highest progress shown so far, so progress never moves back. */
  progress: number;
};

export type DeliveryRow = {
  job_id: string;
  message_id: string;
  attempts: number;
  next_attempt_at: number | null;
  delivered_at: number | null;
  gave_up_at: number | null;
  last_error: string | null;
};

/** Jobs and their webhook deliveries, in the resource's SQLite storage. */
export class JobStore {
  private schemaReady = false;

  constructor(private readonly raw: SqlStorage) {}

  /** The tables are created on first use, so an object that never has a job writes none. */
  private get sql(): SqlStorage {
    if (this.schemaReady) return this.raw;
    const raw = this.raw;
    raw.exec(`CREATE TABLE IF NOT EXISTS job (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, completed_at INTEGER, webhook_url TEXT, expires_at INTEGER NOT NULL)`);
    raw.exec(`CREATE TABLE IF NOT EXISTS webhook_delivery (job_id TEXT PRIMARY KEY, message_id TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER, delivered_at INTEGER, gave_up_at INTEGER, last_error TEXT)`);
    // Columns added later: existing objects get them on first use (SQLite has no ADD COLUMN IF NOT EXISTS).
    const columns = new Set(raw.exec<{ name: string }>(`PRAGMA table_info(job)`).toArray().map((c) => c.name));
    if (!columns.has("caller_url")) raw.exec(`ALTER TABLE job ADD COLUMN caller_url TEXT`);
    if (!columns.has("stages")) raw.exec(`ALTER TABLE job ADD COLUMN stages TEXT`);
    if (!columns.has("progress")) raw.exec(`ALTER TABLE job ADD COLUMN progress INTEGER NOT NULL DEFAULT 0`);
    this.schemaReady = true;
    return raw;
  }

  create(id: string, now: number, ttlMs: number, webhookUrl: string | undefined, stages: readonly string[], callerUrl?: string): void {
    this.sql.exec(
      `INSERT INTO job (id, created_at, webhook_url, expires_at, stages, caller_url) VALUES (?, ?, ?, ?, ?, ?)`,
      id, now, webhookUrl ?? null, now + ttlMs, JSON.stringify(stages), callerUrl ?? null,
    );
  }

  /** Remembers the progress shown, so a later view never shows less. */
  raiseProgress(id: string, progress: number): void {
    this.sql.exec(`UPDATE job SET progress = ? WHERE id = ? AND progress < ?`, progress, id, progress);
  }

  /**
   * The unexpired job of this (webhook URL, caller URL) on this resource, pending or already delivered: a
   * repeated request joins it instead of adding another POST to the same target. Only
   * the same caller URL joins, so no caller can read another caller's URL through a shared job.
   */
  existingForWebhook(webhookUrl: string, callerUrl: string | undefined, now: number): JobRow | undefined {
    return this.sql
      .exec<JobRow>(
        `SELECT * FROM job WHERE webhook_url = ? AND caller_url IS ? AND expires_at > ? ORDER BY created_at LIMIT 1`,
        webhookUrl, callerUrl ?? null, now,
      )
      .toArray()[0];
  }

  get(id: string, now: number): JobRow | undefined {
    return this.sql.exec<JobRow>(`SELECT * FROM job WHERE id = ? AND expires_at > ?`, id, now).toArray()[0];
  }

  /** Marks every open job complete; returns those that asked for a webhook. */
  completeOpen(now: number, ttlMs: number): JobRow[] {
    const open = this.sql.exec<JobRow>(`SELECT * FROM job WHERE completed_at IS NULL`).toArray();
    this.sql.exec(`UPDATE job SET completed_at = ?, expires_at = ? WHERE completed_at IS NULL`, now, now + ttlMs);
    return open.filter((j) => j.webhook_url !== null);
  }

  scheduleDelivery(jobId: string, messageId: string, at: number): void {
    this.sql.exec(`INSERT OR IGNORE INTO webhook_delivery (job_id, message_id, next_attempt_at) VALUES (?, ?, ?)`, jobId, messageId, at);
  }

  dueDeliveries(now: number): (DeliveryRow & { webhook_url: string; completed_at: number; caller_url: string | null })[] {
    return this.sql
      .exec<DeliveryRow & { webhook_url: string; completed_at: number; caller_url: string | null }>(
        `SELECT d.*, j.webhook_url, j.completed_at, j.caller_url FROM webhook_delivery d JOIN job j ON j.id = d.job_id
         WHERE d.delivered_at IS NULL AND d.gave_up_at IS NULL AND d.next_attempt_at <= ?`,
        now,
      )
      .toArray();
  }

  recordAttempt(jobId: string, outcome: { deliveredAt?: number; nextAttemptAt?: number; gaveUpAt?: number; error?: string }): void {
    this.sql.exec(
      `UPDATE webhook_delivery SET attempts = attempts + 1, delivered_at = ?, next_attempt_at = ?, gave_up_at = ?, last_error = ? WHERE job_id = ?`,
      outcome.deliveredAt ?? null, outcome.nextAttemptAt ?? null, outcome.gaveUpAt ?? null, outcome.error ?? null, jobId,
    );
  }

  /** Moves a due delivery to later without counting an attempt (its target host is over its rate limit). */
  postpone(jobId: string, at: number): void {
    this.sql.exec(`UPDATE webhook_delivery SET next_attempt_at = ? WHERE job_id = ?`, at, jobId);
  }

  delivery(jobId: string): DeliveryRow | undefined {
    return this.sql.exec<DeliveryRow>(`SELECT * FROM webhook_delivery WHERE job_id = ?`, jobId).toArray()[0];
  }

  nextDeliveryAt(): number | undefined {
    const row = this.sql.exec<{ t: number | null }>(
      `SELECT MIN(next_attempt_at) AS t FROM webhook_delivery WHERE delivered_at IS NULL AND gave_up_at IS NULL`,
    ).toArray()[0];
    return row?.t ?? undefined;
  }

  deleteExpired(now: number): void {
    this.sql.exec(`DELETE FROM webhook_delivery WHERE job_id IN (SELECT id FROM job WHERE expires_at <= ?)`, now);
    this.sql.exec(`DELETE FROM job WHERE expires_at <= ?`, now);
  }

  nextExpiry(): number | undefined {
    return this.sql.exec<{ t: number | null }>(`SELECT MIN(expires_at) AS t FROM job`).toArray()[0]?.t ?? undefined;
  }
}
