import type { ResourceRecord, Transfer } from "../../shared/schemas/record.ts";

/** Adds traffic to the record's tally (diagnostics.bytesPulled, requests, redirects). */
export function addTransfer(record: ResourceRecord, more: Partial<Transfer>): void {
  const now = record.transfer ?? { bytes: 0, requests: 0, redirects: 0 };
  record.transfer = {
    bytes: now.bytes + (more.bytes ?? 0),
    requests: now.requests + (more.requests ?? 0),
    redirects: now.redirects + (more.redirects ?? 0),
  };
}
