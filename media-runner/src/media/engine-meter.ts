/**
 * The engine-time part of an inspection's budget (shared/limits.ts inspectionEngineSecondsBudget): every engine
 * process a job starts (runProcess) registers here, and when the wall time of the running engines, summed,
 * reaches what the inspection has left, they are killed with the budget's error. An engine is refused before
 * it starts once nothing is left. What the job spent travels back to the Worker (the answer's engineMs, or
 * the error's usage), which charges it to the inspection: a retry gets only the rest.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { engineBudgetSpentMessage } from "../../../shared/limits.ts";
import { RunnerError } from "../errors.ts";

/** Permanent (the Worker does not retry it): the same bytes would need the same engine time again. */
export function engineBudgetSpent(): RunnerError {
  return new RunnerError("PAYLOAD_TOO_LARGE", engineBudgetSpentMessage());
}

interface Running {
  started: number;
  kill: (error: RunnerError) => void;
}

export class EngineMeter {
  private finishedMs = 0;
  /** Engine processes started for the job (the job log line reports it: what each job costs in start-ups). */
  started = 0;
  private readonly running = new Set<Running>();
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly limitMs: number) {}

  /** Engine milliseconds spent so far, the running engines' time included. */
  get usedMs(): number {
    const now = performance.now();
    let ms = this.finishedMs;
    for (const engine of this.running) ms += now - engine.started;
    return Math.round(ms);
  }

  get remainingMs(): number {
    return Math.max(0, this.limitMs - this.usedMs);
  }

  /**
   * An engine starts: throws the budget's error when nothing is left; `kill` is called with it if the budget
   * runs out while the engine runs. Returns the function to call when the engine has exited.
   */
  start(kill: (error: RunnerError) => void, process = true): () => void {
    if (this.remainingMs <= 0) throw engineBudgetSpent();
    const engine: Running = { started: performance.now(), kill };
    // A decode in a long-lived decoder process (engine-worker/) spends budget but starts no process.
    if (process) this.started++;
    this.running.add(engine);
    this.schedule();
    return () => {
      if (!this.running.delete(engine)) return;
      this.finishedMs += performance.now() - engine.started;
      this.schedule();
    };
  }

  /** One timer for when the running engines, at their number, spend what is left. */
  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running.size === 0) return;
    const wait = this.remainingMs / this.running.size;
    this.timer = setTimeout(() => {
      if (this.remainingMs > 0) return this.schedule();
      for (const engine of this.running) engine.kill(engineBudgetSpent());
    }, Math.max(1, Math.ceil(wait)));
    this.timer.unref();
  }
}

const scope = new AsyncLocalStorage<EngineMeter>();

/** Runs a job under its meter: engines it starts (runProcess) count against it. */
export function withEngineMeter<T>(meter: EngineMeter, job: () => T): T {
  return scope.run(meter, job);
}

/** The meter of the job this code runs for, if any. */
export function currentEngineMeter(): EngineMeter | undefined {
  return scope.getStore();
}
