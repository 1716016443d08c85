/**
 * The Durable Object's durable list of runner work under way (its own SQLite table), so that work survives a
 * restart of the Worker or the runner: each row says which stages were sent, how (direct call or queue),
 * which incarnation of the object made a direct call, and by when the work counts as lost. The object's
 * alarm (the watchdog) re-dispatches rows that are lost: a direct call made by an earlier incarnation (the
 * process stopped mid-call) at once, a queue message not picked up or not finished by its deadline after it.
 */
import type { StageName } from "../../shared/schemas/stages.ts";

export type DispatchVia = "direct" | "queue";

export interface DispatchRow {
  id: number;
  stages: StageName[];
  via: DispatchVia;
  /** Incarnation of the object that made a direct call (random per object start). */
  owner: string;
  /** Calls made for these stages so far, this one included. */
  attempt: number;
  /** After this time the work is lost unless it finished. */
  deadline: number;
  /** The inspection that asked for the work (request id, caller key): a re-dispatch keeps them. */
  caller?: { requestId?: string; client?: string };
}

export class DispatchLedger {
  private schemaReady = false;

  constructor(private readonly raw: SqlStorage) {}

  /** The table is created on first use, so an object that never dispatches writes none. */
  private get sql(): SqlStorage {
    if (!this.schemaReady) {
      this.raw.exec(`CREATE TABLE IF NOT EXISTS dispatch (id INTEGER PRIMARY KEY AUTOINCREMENT, stages TEXT NOT NULL, via TEXT NOT NULL, owner TEXT NOT NULL, attempt INTEGER NOT NULL, deadline INTEGER NOT NULL, caller TEXT)`);
      // A table made before the caller was kept gets the column (the error says it is there already).
      try {
        this.raw.exec(`ALTER TABLE dispatch ADD COLUMN caller TEXT`);
      } catch {
        // present
      }
      this.schemaReady = true;
    }
    return this.raw;
  }

  add(row: Omit<DispatchRow, "id">): number {
    const [inserted] = this.sql
      .exec<{ id: number }>(`INSERT INTO dispatch (stages, via, owner, attempt, deadline, caller) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
        JSON.stringify(row.stages), row.via, row.owner, row.attempt, row.deadline, row.caller ? JSON.stringify(row.caller) : null)
      .toArray();
    return inserted!.id;
  }

  all(): DispatchRow[] {
    return this.sql
      .exec<{ id: number; stages: string; via: string; owner: string; attempt: number; deadline: number; caller: string | null }>(`SELECT * FROM dispatch ORDER BY id`)
      .toArray()
      .map((r) => ({
        id: r.id, stages: JSON.parse(r.stages) as StageName[], via: r.via as DispatchVia, owner: r.owner, attempt: r.attempt, deadline: r.deadline,
        ...(r.caller ? { caller: JSON.parse(r.caller) as DispatchRow["caller"] } : {}),
      }));
  }

  remove(id: number): void {
    this.sql.exec(`DELETE FROM dispatch WHERE id = ?`, id);
  }

  /** The queue consumer reported progress (started, or a retry due later): the deadline moves. */
  extendFor(stages: readonly StageName[], deadline: number): void {
    for (const row of this.all()) {
      if (row.via === "queue" && row.stages.some((s) => stages.includes(s))) {
        this.sql.exec(`UPDATE dispatch SET deadline = ? WHERE id = ?`, deadline, row.id);
      }
    }
  }

  /** Rows none of whose stages is still pending are finished. */
  prune(pending: (stages: readonly StageName[]) => StageName[]): void {
    for (const row of this.all()) if (pending(row.stages).length === 0) this.remove(row.id);
  }

  nextDeadline(): number | undefined {
    const row = this.sql.exec<{ d: number | null }>(`SELECT MIN(deadline) AS d FROM dispatch`).toArray()[0];
    return row?.d ?? undefined;
  }

  isEmpty(): boolean {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM dispatch`).toArray()[0]!.n === 0;
  }
}
