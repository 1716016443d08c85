import type { ResourceRecord, Transfer } from "../../shared/schemas/record.ts";

import type { RunnerUsage } from "../../shared/shapes/runner.ts";

/** Adds traffic to the record's tally (diagnostics.bytesPulled, requests, redirects) and the runner's engine time. */
export function addTransfer(record: ResourceRecord, more: Partial<Transfer>): void {
  const now = record.transfer ?? { bytes: 0, requests: 0, redirects: 0 };
  const engineMs = (now.engineMs ?? 0) + (more.engineMs ?? 0);
  record.transfer = {
    bytes: now.bytes + (more.bytes ?? 0),
    requests: now.requests + (more.requests ?? 0),
    redirects: now.redirects + (more.redirects ?? 0),
    ...(engineMs > 0 ? { engineMs } : {}),
  };
}

/** A failed runner job's spending, as traffic (its redirects are among its requests). */
export function usageTransfer(usage: RunnerUsage): Partial<Transfer> {
  return { bytes: usage.bytes, requests: usage.requests, engineMs: usage.engineMs };
}
