/**
 * Which media runner gets a job. Runners are several: self-hosted at RUNNER_URLS (and RUNNER_URL), or on
 * Cloudflare up to RUNNER_INSTANCES containers of the MEDIA_RUNNER binding, each a named instance. A job goes
 * to the runner its resource key ranks first (rendezvous hashing: the retries of one URL meet the same warm
 * cache, and adding a runner moves only its share of keys), and on to the next when that one is unreachable
 * or answers 503 (busy, or draining for a restart). A runner that failed to answer is skipped for
 * RUNNER_RETRY_AFTER_MS, then health-checked before it gets jobs again.
 */
import { getContainer } from "@cloudflare/containers";
import { runnerUrlList, type RunnerConfig } from "../config/runner-config.ts";
import { runnerHealthPath } from "../../shared/shapes/runner.ts";
import { rendezvousWeight } from "./rendezvous.ts";

export interface RunnerTarget {
  /** Stable name: the base URL, or `container:<n>`. */
  readonly id: string;
  /** Sends a request whose URL path is the runner API path (`/v1/...`). */
  send(path: string, init: RequestInit): Promise<Response>;
}

/** Runners tried for one job before its failure is reported (the dispatcher retries later). */
export const maxRunnersPerJob = 3;
/** A health check gets this long to answer. */
const healthCheckTimeoutMs = 2_000;

/** Isolate-local: until when a target is skipped. */
const unhealthyUntil = new Map<string, number>();

export function runnerTargets(env: Env, config: RunnerConfig): RunnerTarget[] {
  const urls = [...new Set([...(config.RUNNER_URL ? [config.RUNNER_URL] : []), ...runnerUrlList(config.RUNNER_URLS)])];
  if (urls.length > 0) {
    return urls.map((base) => ({ id: base, send: (path, init) => fetch(new URL(path, base), init) }));
  }
  return Array.from({ length: config.RUNNER_INSTANCES }, (_, n) => ({
    id: `container:${n}`,
    send: (path: string, init: RequestInit) => getContainer(env.MEDIA_RUNNER, `runner-${n}`).fetch(new Request(`http://runner${path}`, init)),
  }));
}

/** The targets in the order a key tries them: highest rendezvous weight first, healthy before skipped ones. */
export function rankTargets<T extends { id: string }>(targets: readonly T[], key: string, now = Date.now()): T[] {
  const weighted = targets.map((target) => ({ target, weight: rendezvousWeight(key, target.id), down: (unhealthyUntil.get(target.id) ?? 0) > now }));
  weighted.sort((a, b) => Number(a.down) - Number(b.down) || b.weight - a.weight);
  return weighted.map((w) => w.target);
}

export function markUnhealthy(id: string, config: RunnerConfig, now = Date.now()): void {
  unhealthyUntil.set(id, now + config.RUNNER_RETRY_AFTER_MS);
}

/** A target skipped earlier whose pause is over answers its health check before it gets a job. */
async function readyForWork(target: RunnerTarget, config: RunnerConfig): Promise<boolean> {
  const until = unhealthyUntil.get(target.id);
  if (until === undefined) return true;
  if (until > Date.now()) return false;
  try {
    const res = await target.send(runnerHealthPath, { signal: AbortSignal.timeout(healthCheckTimeoutMs) });
    await res.body?.cancel();
    if (res.ok) {
      unhealthyUntil.delete(target.id);
      return true;
    }
  } catch {
    // unreachable: stays skipped
  }
  markUnhealthy(target.id, config);
  return false;
}

/**
 * Sends one runner API request for the job of `key`, failing over as described above. Throws the last
 * transport error when no runner answered; returns the last 503 when every runner tried was busy.
 */
export async function sendToRunners(env: Env, config: RunnerConfig, key: string, path: string, init: RequestInit & { signal: AbortSignal }): Promise<Response> {
  const ranked = rankTargets(runnerTargets(env, config), key);
  let lastError: unknown = new Error("no media runner is configured");
  let lastBusy: Response | undefined;
  let tried = 0;
  for (const [index, target] of ranked.entries()) {
    if (tried >= maxRunnersPerJob) break;
    // The last candidate is tried even when marked down: better a doubtful runner than none.
    const isLast = index === ranked.length - 1;
    if (!isLast && !(await readyForWork(target, config))) continue;
    tried++;
    try {
      const response = await target.send(path, init);
      if (response.status !== 503) return response;
      await lastBusy?.body?.cancel();
      lastBusy = response;
    } catch (error) {
      // The job's own deadline passed: another runner would only start it again from zero.
      if (init.signal.aborted) throw error;
      markUnhealthy(target.id, config);
      lastError = error;
    }
  }
  if (lastBusy) return lastBusy;
  throw lastError;
}
