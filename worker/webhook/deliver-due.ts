import type { Config } from "../config/config.ts";
import type { JobStore } from "../jobs/job-store.ts";
import { project } from "../../shared/projection/index.ts";
import type { InspectResponse } from "../../shared/schemas/inspect.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { deliverWebhook } from "./deliver-webhook.ts";
import { webhookHostAllowed } from "./host-rate-limit.ts";
import { jobView } from "../jobs/job-status.ts";

/**
 * Sends every webhook delivery that is due (called from the resource's alarm). A 2xx ends a delivery; a
 * failure is retried after WEBHOOK_RETRY_BASE_MS x 2^(attempt-1), until WEBHOOK_MAX_ATTEMPTS or a permanent
 * refusal (the target became a denied address, or the receiver answered 4xx). See SECURITY.md for the policy.
 */
export async function deliverDueWebhooks(
  jobs: JobStore,
  record: ResourceRecord | undefined,
  config: Config,
  now: number,
  env?: unknown,
): Promise<void> {
  const due = jobs.dueDeliveries(now);
  if (due.length === 0) return;
  for (const delivery of due) {
    // Per-target-host limit: a delivery over it waits for the next window instead of being sent now.
    const rate = await webhookHostAllowed(env ?? {}, config, webhookHost(delivery.webhook_url));
    if (!rate.allowed) {
      jobs.postpone(delivery.job_id, Date.now() + rate.resetSeconds * 1000);
      continue;
    }
    // Each job's event carries its own caller's URL, never another caller's.
    const own = record ? { ...record, url: delivery.caller_url ?? record.url } : undefined;
    const result = own ? (project(own, { profile: "standard", responseSource: "cache" }) as InspectResponse) : undefined;
    const outcome = await deliverWebhook(config, delivery.webhook_url, delivery.message_id, {
      type: "inspection.completed",
      timestamp: new Date(delivery.completed_at).toISOString(),
      data: {
        jobId: delivery.job_id,
        url: own?.url ?? delivery.caller_url ?? "",
        status: webhookStatus(jobs, delivery.job_id, record, now),
        ...(result ? { result } : {}),
      },
    });
    const attempt = delivery.attempts + 1;
    if (outcome.ok) jobs.recordAttempt(delivery.job_id, { deliveredAt: Date.now() });
    else if (outcome.permanent || attempt >= config.WEBHOOK_MAX_ATTEMPTS) {
      jobs.recordAttempt(delivery.job_id, { gaveUpAt: Date.now(), error: outcome.error });
    } else {
      const delay = config.WEBHOOK_RETRY_BASE_MS * 2 ** (attempt - 1);
      jobs.recordAttempt(delivery.job_id, { nextAttemptAt: Date.now() + delay, error: outcome.error });
    }
  }
}

function webhookHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The job's own final status (failed when every stage it waited for failed), as GET /api/v1/job shows it. */
function webhookStatus(jobs: JobStore, jobId: string, record: ResourceRecord | undefined, now: number): "completed" | "failed" {
  const row = jobs.get(jobId, now);
  if (!row || !record) return record ? "completed" : "failed";
  return jobView(row, record).status === "failed" ? "failed" : "completed";
}
