import { ResourceRecord } from "../../shared/schemas/record.ts";
import { stagesFor } from "../../shared/stages/index.ts";
import { ErrorReason } from "../../shared/schemas/error.ts";
import type { PublicErrorFields } from "../errors/api-error.ts";

export interface CachedError extends PublicErrorFields {
  expiresAt: number;
}

/** The error's reason, upstream status and Retry-After, kept as one JSON column (added after the table). */
function extrasJson(error: CachedError): string {
  return JSON.stringify({ reason: error.reason, upstreamStatus: error.upstreamStatus, retryAfter: error.retryAfter });
}

function extrasFrom(json: string | null): Pick<CachedError, "reason" | "upstreamStatus" | "retryAfter"> {
  if (!json) return {};
  const raw = JSON.parse(json) as Record<string, unknown>;
  const reason = ErrorReason.safeParse(raw.reason);
  return {
    ...(reason.success ? { reason: reason.data } : {}),
    ...(typeof raw.upstreamStatus === "number" ? { upstreamStatus: raw.upstreamStatus } : {}),
    ...(typeof raw.retryAfter === "number" ? { retryAfter: raw.retryAfter } : {}),
  };
}

/**
 * The ResourceObject's SQLite tables. One row per table per object: each object is one resource. The tables are
 * created on the first write; until then reads find nothing, so a new object that only fails writes nothing
 * (a stream of new failing URLs costs no storage writes).
 */
export class RecordStore {
  private schemaReady = false;

  constructor(private readonly raw: SqlStorage) {}

  /** For reads: whether the tables exist (one look at the schema until they do). */
  private get tables(): SqlStorage | undefined {
    if (!this.schemaReady) {
      const n = this.raw.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('resource', 'origin_error')`).one().n;
      if (n < 2) return undefined;
      this.addExtrasColumn();
      this.schemaReady = true;
    }
    return this.raw;
  }

  /** For writes: creates the tables the first time. */
  private get sql(): SqlStorage {
    if (!this.schemaReady) {
      this.raw.exec(`CREATE TABLE IF NOT EXISTS resource (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL, expires_at INTEGER NOT NULL)`);
      this.raw.exec(`CREATE TABLE IF NOT EXISTS origin_error (id INTEGER PRIMARY KEY CHECK (id = 1), status INTEGER NOT NULL, code TEXT NOT NULL, message TEXT NOT NULL, expires_at INTEGER NOT NULL)`);
      this.addExtrasColumn();
      this.schemaReady = true;
    }
    return this.raw;
  }

  /** Objects created before error reasons have the table without the `extras` column: added once. */
  private addExtrasColumn(): void {
    const has = this.raw.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM pragma_table_info('origin_error') WHERE name = 'extras'`).one().n;
    if (has === 0) this.raw.exec(`ALTER TABLE origin_error ADD COLUMN extras TEXT`);
  }

  loadRecord(now: number): ResourceRecord | undefined {
    const tables = this.tables;
    if (!tables) return undefined;
    const row = tables.exec<{ record: string; expires_at: number }>(`SELECT record, expires_at FROM resource WHERE id = 1`).toArray()[0];
    if (!row || row.expires_at <= now) return undefined;
    const parsed = ResourceRecord.safeParse(JSON.parse(row.record));
    if (!parsed.success) return undefined;
    // A record stored before a stage of its category existed has no entry for it, which would read as pending
    // forever: such a record is inspected afresh instead.
    if (stagesFor(parsed.data.category).some((stage) => parsed.data.stages[stage] === undefined)) return undefined;
    return parsed.data;
  }

  saveRecord(record: ResourceRecord): void {
    this.sql.exec(
      `INSERT INTO resource (id, record, expires_at) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET record = excluded.record, expires_at = excluded.expires_at`,
      JSON.stringify(record),
      record.expiresAt,
    );
  }

  deleteRecord(): void {
    this.sql.exec(`DELETE FROM resource`);
  }

  loadError(now: number): CachedError | undefined {
    const tables = this.tables;
    if (!tables) return undefined;
    const row = tables
      .exec<{ status: number; code: string; message: string; expires_at: number; extras: string | null }>(
        `SELECT status, code, message, expires_at, extras FROM origin_error WHERE id = 1`,
      )
      .toArray()[0];
    if (!row || row.expires_at <= now) return undefined;
    return { status: row.status, code: row.code, message: row.message, expiresAt: row.expires_at, ...extrasFrom(row.extras) };
  }

  saveError(error: CachedError): void {
    this.sql.exec(
      `INSERT INTO origin_error (id, status, code, message, expires_at, extras) VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET status = excluded.status, code = excluded.code, message = excluded.message, expires_at = excluded.expires_at, extras = excluded.extras`,
      error.status, error.code, error.message, error.expiresAt, extrasJson(error),
    );
  }

  clearError(): void {
    this.sql.exec(`DELETE FROM origin_error`);
  }

  deleteExpired(now: number): void {
    this.sql.exec(`DELETE FROM resource WHERE expires_at <= ?`, now);
    this.sql.exec(`DELETE FROM origin_error WHERE expires_at <= ?`, now);
  }

  /** Earliest moment anything stored here expires (for the cleanup alarm). */
  nextExpiry(): number | undefined {
    const row = this.sql.exec<{ t: number | null }>(
      `SELECT MIN(t) AS t FROM (SELECT expires_at AS t FROM resource UNION ALL SELECT expires_at AS t FROM origin_error)`,
    ).toArray()[0];
    return row?.t ?? undefined;
  }
}
