// Worker-side helpers (run inside workerd) for following jobs, runner calls and webhook deliveries.
import { SELF } from "cloudflare:test";
import { origin } from "./helpers.ts";
import { webhookDelivery } from "./object-state.ts";
import { waitFor } from "../wait-for.ts";

export type JobBody = {
  success: true;
  job: { id: string; status: string; progress: number; createdAt: string; completedAt?: string };
  data?: any;
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function getJob(id: string): Promise<{ status: number; body: any }> {
  const response = await SELF.fetch(`http://service/api/v1/job/${encodeURIComponent(id)}`);
  return { status: response.status, body: await response.json() };
}

/**
 * Polls GET /api/v1/job/{id} until it is completed or failed, at most `tries` x `everyMs` (never forever).
 * Returns every answer seen, so callers can check progress and the status sequence.
 */
export async function pollJob(id: string, tries = 120, everyMs = 100): Promise<{ final: JobBody; seen: JobBody[] }> {
  const seen: JobBody[] = [];
  for (let i = 0; i < tries; i++) {
    const { status, body } = await getJob(id);
    if (status !== 200) throw new Error(`GET job ${id} answered ${status}: ${JSON.stringify(body)}`);
    seen.push(body);
    if (body.job.status === "completed" || body.job.status === "failed") return { final: body, seen };
    await sleep(everyMs);
  }
  throw new Error(`job ${id} not finished after ${tries * everyMs} ms; last: ${JSON.stringify(seen.at(-1)?.job)}`);
}

/** Runner calls counted by the fault-injecting gate, per media URL. */
export async function runnerCalls(mediaUrl: string): Promise<number> {
  const calls = (await (await fetch(`${origin}/__extra/runnerCalls`)).json()) as Record<string, number>;
  return calls[mediaUrl] ?? 0;
}

/** The X-Request-Id of each runner call for a media URL, as the gate saw them ("" for a call without one). */
export async function runnerRequestIds(mediaUrl: string): Promise<string[]> {
  const ids = (await (await fetch(`${origin}/__extra/runnerRequestIds`)).json()) as Record<string, string[]>;
  return ids[mediaUrl] ?? [];
}

/** What `read` gives once it gives anything (a runner call seen by the gate), or [] after timeoutMs. */
export async function firstSeen<T>(read: () => Promise<T[]>, timeoutMs = 20_000): Promise<T[]> {
  return waitFor(async () => {
    const seen = await read();
    return seen.length > 0 && seen;
  }, { timeoutMs, what: "a runner call" }).catch(() => []);
}

/** RunnerRequest.client of each runner call for a media URL, as the gate saw them ("" for a call without one). */
export async function runnerClients(mediaUrl: string): Promise<string[]> {
  const all = (await (await fetch(`${origin}/__extra/runnerClients`)).json()) as Record<string, string[]>;
  return all[mediaUrl] ?? [];
}

/** RunnerRequest.budget of each runner call for a media URL, as the gate saw them (null for a call without one). */
export async function runnerBudgets(mediaUrl: string): Promise<Array<{ requests: number; bytes: number; engineMs?: number } | null>> {
  const all = (await (await fetch(`${origin}/__extra/runnerBudgets`)).json()) as Record<string, Array<{ requests: number; bytes: number; engineMs?: number } | null>>;
  return all[mediaUrl] ?? [];
}

export interface Delivery {
  path: string;
  headers: Record<string, string>;
  body: string;
  answered: number;
}

export async function webhookDeliveries(path: string): Promise<Delivery[]> {
  const all = (await (await fetch(`${origin}/__extra/webhooks`)).json()) as Delivery[];
  return all.filter((d) => d.path === path);
}

/**
 * Waits (bounded) until `path` has received `count` deliveries, noting when each was first seen
 * (the receiver records no arrival time; polling every `everyMs` gives the spacing to within that).
 */
export async function awaitDeliveries(path: string, count: number, timeoutMs = 15_000, everyMs = 20) {
  const seenAt: number[] = [];
  const deadline = Date.now() + timeoutMs;
  let deliveries: Delivery[] = [];
  while (Date.now() < deadline) {
    deliveries = await webhookDeliveries(path);
    while (seenAt.length < deliveries.length) seenAt.push(Date.now());
    if (deliveries.length >= count) return { deliveries, seenAt };
    await sleep(everyMs);
  }
  throw new Error(`${path}: ${deliveries.length} of ${count} deliveries after ${timeoutMs} ms`);
}

/**
 * Once the resource's object has settled the job's delivery (delivered, or given up: no attempt follows), the
 * attempts it made and what the receiver got on `path`: a check that nothing more arrives needs no fixed wait.
 */
export async function settledDeliveries(resourceUrl: string, jobId: string, path: string, timeoutMs = 20_000) {
  const state = await waitFor(async () => {
    const delivery = await webhookDelivery(resourceUrl, jobId);
    return delivery?.settled ? delivery : undefined;
  }, { timeoutMs, intervalMs: 50, what: `job ${jobId}'s webhook delivery settled` });
  return { attempts: state.attempts, deliveries: await webhookDeliveries(path) };
}
