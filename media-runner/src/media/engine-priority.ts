/**
 * CPU priority of a job's engine processes. The engines' CPU is what one origin's jobs take
 * from another's: every ffmpeg/ffprobe start alone costs about 200 ms of CPU with Debian's build. The fair
 * scheduler gives each origin (flow) one job in the foreground, its oldest one under way; the engines of its
 * other jobs run in the background, at the lowest priority (a higher nice value, which any process may set on
 * its own children), so they get the CPU the foreground jobs leave. An origin with twelve jobs then weighs on
 * the CPU like an origin with one, however its jobs came to hold runner slots.
 *
 * A running engine is never raised again (that would need CAP_SYS_NICE, which the runner does not have): a job
 * that becomes its origin's oldest starts its later engines in the foreground.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { setPriority } from "node:os";
import { BACKGROUND_ENGINE_NICE } from "../config.ts";

/** Nice value of background engines (0 is the runner's own; 19 the lowest): config.ts. */
export const lentEngineNice = BACKGROUND_ENGINE_NICE;

export class EnginePriority {
  private readonly pids = new Set<number>();
  private lowered: boolean;

  /**
   * `yieldsNow`: asked at each engine start; true puts that engine in the background for now (the fair
   * scheduler says so while the job's origin is crowded and a lighter origin has a job under way).
   */
  constructor(background = false, private readonly yieldsNow: () => boolean = () => false) {
    this.lowered = background;
  }

  /** Whether engines started now run in the background. */
  get background(): boolean {
    return this.lowered || this.yieldsNow();
  }

  /** Nice value for an engine started now. */
  get nice(): number {
    return this.lowered ? lentEngineNice : 0;
  }

  /** Engines started from now on, and those running, run in the background. */
  lower(): void {
    if (this.lowered) return;
    this.lowered = true;
    for (const pid of this.pids) renice(pid);
  }

  /** The engines running now go to the background; later ones ask `yieldsNow` again when they start. */
  yieldRunning(): void {
    for (const pid of this.pids) renice(pid);
  }

  /** Engines started from now on run in the foreground (running ones stay where they are). */
  raise(): void {
    this.lowered = false;
  }

  /** Called by runProcess for each child; returns the function to call when it exits. */
  track(pid: number): () => void {
    this.pids.add(pid);
    if (this.background) renice(pid);
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
