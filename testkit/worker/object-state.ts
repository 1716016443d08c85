import { env, runInDurableObject } from "cloudflare:test";
import { normalizeUrl } from "../../worker/record/target-url.ts";
import { tooOldFor } from "../../worker/stages/freshness.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";

/**
 * What a resource's Durable Object has left to do, read from its storage: the events a test waits for before it
 * checks that nothing more happens (no retry, no second delivery), instead of sleeping for a fixed time.
 */
const resources = (env as unknown as { RESOURCE: DurableObjectNamespace }).RESOURCE;

/** The Durable Object of the resource at `url` (named by its normalised URL, as the service names it). */
export function resourceObject(url: string): DurableObjectStub {
  return resources.get(resources.idFromName(normalizeUrl(new URL(url))));
}

export interface DeliveryState {
  attempts: number;
  /** Delivered, or given up (a permanent refusal or the last attempt): no further attempt follows. */
  settled: boolean;
}

/** A job's webhook delivery as the object records it (undefined: none registered for that job). */
export function webhookDelivery(resourceUrl: string, jobId: string): Promise<DeliveryState | undefined> {
  return runInDurableObject(resourceObject(resourceUrl), async (_instance, state) => {
    const sql = state.storage.sql;
    if (sql.exec(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'webhook_delivery'`).toArray().length === 0) return undefined;
    const row = sql
      .exec<{ attempts: number; delivered_at: number | null; gave_up_at: number | null }>(
        `SELECT attempts, delivered_at, gave_up_at FROM webhook_delivery WHERE job_id = ?`, jobId)
      .toArray()[0];
    return row ? { attempts: row.attempts, settled: row.delivered_at !== null || row.gave_up_at !== null } : undefined;
  });
}

/**
 * Whether the resource's runner work has ended for good: no dispatch is outstanding (no retry or watchdog can call
 * the runner again) and no runner stage is still pending.
 */
export function runnerWorkSettled(resourceUrl: string): Promise<boolean> {
  return runInDurableObject(resourceObject(resourceUrl), async (_instance, state) => {
    const sql = state.storage.sql;
    const hasTable = (name: string) => sql.exec(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?`, name).toArray().length > 0;
    const dispatches = hasTable("dispatch") ? sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM dispatch`).toArray()[0]!.n : 0;
    const row = hasTable("resource") ? sql.exec<{ record: string }>(`SELECT record FROM resource`).toArray()[0] : undefined;
    const stages = row ? Object.values((JSON.parse(row.record) as { stages: Record<string, { state: string; engine?: string }> }).stages) : [];
    return dispatches === 0 && stages.every((stage) => stage.engine !== "runner" || stage.state !== "pending");
  });
}

/**
 * Whether the stored record of `resourceUrl` is older than `maxAgeSeconds` allows, by the service's own rule (ages
 * are whole seconds): what a freshness test waits for instead of sleeping past a second.
 */
export function recordOlderThan(resourceUrl: string, maxAgeSeconds: number): Promise<boolean> {
  return runInDurableObject(resourceObject(resourceUrl), async (_instance, state) => {
    const sql = state.storage.sql;
    if (sql.exec(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'resource'`).toArray().length === 0) return false;
    const row = sql.exec<{ record: string }>(`SELECT record FROM resource`).toArray()[0];
    return row ? tooOldFor(JSON.parse(row.record) as ResourceRecord, maxAgeSeconds) : false;
  });
}
