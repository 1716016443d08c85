/**
 * Graceful shutdown of the job route. On `begin(graceMs)`: new jobs and jobs still waiting for a slot are
 * handed back at once (503 RUNNER_BUSY with Retry-After, which the Worker retries); running jobs get until
 * the grace period ends to finish, then they are aborted and handed back the same way. `drained` resolves
 * when no job is left, so the process can close its server and exit 0 without losing work.
 */
import { RunnerError } from "../errors.ts";

/** Seconds a caller should wait before retrying a job this runner handed back (a restart takes about that). */
export const handBackRetryAfterSeconds = 5;

export function handBackError(): RunnerError {
  return new RunnerError("RUNNER_BUSY", "the runner is shutting down; retry the job");
}

export interface JobTicket {
  /** Aborted when the job is handed back (shutdown); the job's work must stop. */
  readonly signal: AbortSignal;
  /** Rejects with the hand-back error when shutdown hands back the job while it still waits for a slot. */
  readonly handedBack: Promise<never>;
  /** The job got a slot and is running now. */
  started(): void;
  /** The job finished (either way). */
  done(): void;
}

interface Entry {
  controller: AbortController;
  running: boolean;
  reject: (error: RunnerError) => void;
}

export class Shutdown {
  private draining = false;
  private readonly jobs = new Set<Entry>();
  private idle?: () => void;

  get isDraining(): boolean {
    return this.draining;
  }

  get inFlight(): number {
    return this.jobs.size;
  }

  /** Registers a job; throws the hand-back error when the runner is already shutting down. */
  admit(): JobTicket {
    if (this.draining) throw handBackError();
    const controller = new AbortController();
    let reject!: (error: RunnerError) => void;
    const handedBack = new Promise<never>((_, r) => (reject = r));
    handedBack.catch(() => {}); // observed through Promise.race; never an unhandled rejection
    const entry: Entry = { controller, running: false, reject };
    this.jobs.add(entry);
    return {
      signal: controller.signal,
      handedBack,
      started: () => {
        entry.running = true;
      },
      done: () => {
        this.jobs.delete(entry);
        if (this.jobs.size === 0) this.idle?.();
      },
    };
  }

  /** Starts draining; resolves once every job has finished or been handed back (at most graceMs + a moment). */
  begin(graceMs: number): Promise<void> {
    this.draining = true;
    for (const entry of this.jobs) {
      if (!entry.running) this.handBack(entry);
    }
    const drained = new Promise<void>((resolve) => {
      this.idle = resolve;
      if (this.jobs.size === 0) resolve();
    });
    const timer = setTimeout(() => {
      for (const entry of this.jobs) this.handBack(entry);
    }, graceMs);
    timer.unref();
    return drained.finally(() => clearTimeout(timer));
  }

  private handBack(entry: Entry): void {
    const error = handBackError();
    entry.reject(error);
    entry.controller.abort(error);
  }
}
