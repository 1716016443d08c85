/**
 * CPU priority of a job's engine processes. The fair scheduler lends the slot of a job that runs long (it is
 * usually waiting on a slow origin) to the next job; when the lent job's data does arrive, its ffprobe/ffmpeg
 * would then compete for the CPU on equal terms with the job that took its slot. A lent job's engines run at a
 * lower priority instead (a higher nice value, which any process may set on its own children), so the CPU goes
 * first to the jobs holding slots.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { setPriority } from "node:os";

/** Nice value of a lent job's engines (0 is the runner's own; 19 the lowest). */
export const lentEngineNice = 10;

export class EnginePriority {
  private readonly pids = new Set<number>();
  private lowered = false;

  /** Engines started from now on, and those running, get the lent priority. */
  lower(): void {
    if (this.lowered) return;
    this.lowered = true;
    for (const pid of this.pids) renice(pid);
  }

  /** Called by runProcess for each child; returns the function to call when it exits. */
  track(pid: number): () => void {
    this.pids.add(pid);
    if (this.lowered) renice(pid);
    return () => this.pids.delete(pid);
  }
}

function renice(pid: number): void {
  try {
    setPriority(pid, lentEngineNice);
  } catch {
    // The process exited in between: nothing to lower.
  }
}

const scope = new AsyncLocalStorage<EnginePriority>();

/** Runs a job with its own priority: engines it starts register with it. */
export function withEnginePriority<T>(priority: EnginePriority, job: () => T): T {
  return scope.run(priority, job);
}

/** The priority of the job this code runs for, if any. */
export function currentEnginePriority(): EnginePriority | undefined {
  return scope.getStore();
}
