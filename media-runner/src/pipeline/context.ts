/** What a job needs from the runner: engines, the proxy, the vetted HTTP agent and the limits. */
import type { Dispatcher } from "undici";
import type { RunnerConfig } from "../config.ts";
import { RemoteSource, defaultSourceLimits } from "../fetch/remote-source.ts";
import type { Binaries } from "../media/binaries.ts";
import type { RangeProxy } from "../proxy/range-proxy.ts";

export interface JobContext {
  config: RunnerConfig;
  binaries: Binaries;
  proxy: RangeProxy;
  dispatcher: Dispatcher;
  signal: AbortSignal;
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

export function newSource(url: string, ctx: JobContext): RemoteSource {
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
