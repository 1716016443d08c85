/**
 * The runner's frame decoder processes: at most one per job slot (RUNNER_CONCURRENCY), each serving one job at a
 * time, so no process ever holds two callers' bytes at once. A job takes an idle process or, when all are busy
 * (or none could start), goes to the ffmpeg CLI as before: it never waits behind another job's decode. Processes
 * start on first use and are replaced after a kill, a crash or memory growth.
 */
import { DecoderFailure, DecoderProcess, resolveNodeAv } from "./decoder-process.ts";

/** Starts failing in a row after which the pool gives up (node-av present but unusable here): the CLI serves all. */
const maxStartFailures = 3;

export class DecoderPool {
  private readonly processes = new Set<DecoderProcess>();
  private startFailures = 0;
  private closed = false;

  constructor(readonly size: number, private readonly nodeAv: string, private readonly maxRssBytes?: number) {}

  /** A pool when node-av is installed; undefined otherwise. */
  static create(size: number): DecoderPool | undefined {
    const nodeAv = resolveNodeAv();
    return nodeAv === null ? undefined : new DecoderPool(size, nodeAv);
  }

  get usable(): boolean {
    return !this.closed && this.startFailures < maxStartFailures;
  }

  /** Process ids of the pool's live decoders (for the CPU bench and tests). */
  get pids(): number[] {
    return [...this.processes].flatMap((p) => (p.alive && p.pid !== undefined ? [p.pid] : []));
  }

  /**
   * An idle, started decoder marked busy for the caller (release() gives it back), or undefined: every process
   * busy, or none can start.
   */
  async acquire(): Promise<DecoderProcess | undefined> {
    for (const p of this.processes) if (!p.alive) this.processes.delete(p);
    let idle = [...this.processes].find((p) => !p.busy && !p.reserved);
    if (!idle) {
      if (!this.usable || this.processes.size >= this.size) return undefined;
      idle = new DecoderProcess(this.nodeAv, this.maxRssBytes);
      this.processes.add(idle);
    }
    idle.reserved = true;
    try {
      await idle.ready;
      this.startFailures = 0;
      return idle;
    } catch (error) {
      this.processes.delete(idle);
      idle.reserved = false;
      if (error instanceof DecoderFailure && error.kind === "unavailable" && ++this.startFailures === maxStartFailures) {
        console.warn(`media-runner: the frame decoder (node-av) could not start ${maxStartFailures} times; frames use the ffmpeg CLI: ${error.message}`);
      }
      return undefined;
    }
  }

  /** After a job: a decoder that was killed, crashed or grew is dropped; the next acquire starts a fresh one. */
  release(process: DecoderProcess): void {
    process.reserved = false;
    if (this.closed || !process.alive || process.bloated) {
      process.kill();
      this.processes.delete(process);
    }
  }

  close(): void {
    this.closed = true;
    for (const p of this.processes) p.kill();
    this.processes.clear();
  }
}
