/** What a job needs from the runner: engines, the proxy, the vetted HTTP agent and the limits. */
import type { Dispatcher } from "undici";
import type { RunnerConfig } from "../config.ts";
import { RemoteSource, defaultSourceLimits, type SourceSeed } from "../fetch/remote-source.ts";
import type { RunnerHead } from "../../../shared/shapes/runner.ts";
import type { Binaries } from "../media/binaries.ts";
import type { JobBudget } from "../fetch/job-budget.ts";
import type { RangeProxy } from "../proxy/range-proxy.ts";
import type { DecoderPool } from "../media/engine-worker/pool.ts";

export interface JobContext {
  config: RunnerConfig;
  binaries: Binaries;
  proxy: RangeProxy;
  dispatcher: Dispatcher;
  signal: AbortSignal;
  /** The job's share of the inspection's origin budget (set per job by processJob), for stages that plan requests. */
  budget?: JobBudget;
  /** The long-lived frame decoder processes, when RUNNER_FRAME_DECODER is on and node-av is installed. */
  decoders?: DecoderPool;
}

/** Per-step wall times in milliseconds. */
export class Timings {
  readonly values: Record<string, number> = {};
  async time<T>(step: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.values[step] = (this.values[step] ?? 0) + Math.round(performance.now() - started);
    }
  }
}

/** The edge's bytes as a cache seed (validated against the origin's first answer by RemoteSource.open). */
export function seedOf(head: RunnerHead | undefined): SourceSeed | undefined {
  if (!head) return undefined;
  return {
    bytes: Buffer.from(head.base64, "base64"),
    size: head.size,
    ...(head.etag !== undefined ? { etag: head.etag } : {}),
    ...(head.lastModified !== undefined ? { lastModified: head.lastModified } : {}),
    ...(head.tail ? { tail: { offset: head.tail.offset, bytes: Buffer.from(head.tail.base64, "base64") } } : {}),
  };
}

export function newSource(url: string, ctx: JobContext, seed?: SourceSeed): RemoteSource {
  const { config } = ctx;
  return new RemoteSource(
    new URL(url),
    {
      dispatcher: ctx.dispatcher,
      allowlist: config.allowlist,
      maxRedirects: config.maxRedirects,
      fetchTimeoutMs: config.fetchTimeoutMs,
      signal: ctx.signal,
    },
    { ...defaultSourceLimits, maxSourceBytes: config.maxSourceBytes },
    seed,
  );
}

/** Runs an engine step; when it fails because the origin failed, the origin's error is the one reported. */
export async function engineStep<T>(source: RemoteSource, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw source.failure ?? error;
  }
}
