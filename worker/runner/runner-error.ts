import type { RunnerUsage } from "../../shared/shapes/runner.ts";

/**
 * A runner failure, classified: permanent ones end the stages as failed, transient ones are retried. `usage`:
 * what the failed job had spent (origin requests, bytes, engine time), charged to the inspection.
 */
export class RunnerError extends Error {
  constructor(readonly code: string, message: string, readonly permanent: boolean, readonly usage?: RunnerUsage) {
    super(message);
    this.name = "RunnerError";
  }
}
