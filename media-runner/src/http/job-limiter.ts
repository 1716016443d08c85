/**
 * At most `concurrency` jobs run at once; up to `maxQueue` more wait in order; beyond that the runner
 * answers 503 at once rather than letting latency grow without bound.
 */
import pLimit, { type LimitFunction } from "p-limit";
import { RunnerError } from "../errors.ts";

export class JobLimiter {
  private readonly limit: LimitFunction;
  constructor(
    readonly concurrency: number,
    private readonly maxQueue: number,
  ) {
    this.limit = pLimit(concurrency);
  }

  get active(): number {
    return this.limit.activeCount;
  }

  get queued(): number {
    return this.limit.pendingCount;
  }

  run<T>(job: () => Promise<T>): Promise<T> {
    if (this.limit.activeCount >= this.concurrency && this.limit.pendingCount >= this.maxQueue) {
      return Promise.reject(new RunnerError("RUNNER_BUSY", "the runner is at capacity; retry later"));
    }
    return this.limit(job);
  }
}
