/**
 * One frame decoder process (decoder-source.ts): started once, then fed one job at a time. It is the job's
 * engine for the frame step, with the walls of one: a time limit and the job's engine budget (engine-meter.ts)
 * kill it, resident memory past frameWorkerMaxRssBytes kills it, and a crash ends only the job it had. A killed
 * or crashed process is not reused; the pool starts another. Its only channel is IPC: no stdin or stdout, its
 * environment without proxy variables (and http_proxy naming nothing), and bytes only as the runner's answers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { RunnerError } from "../../errors.ts";
import { engineEnvironment } from "../run-process.ts";
import { frameWorkerHeapMiB, frameWorkerMaxRssBytes, frameWorkerRssPollMs } from "../engine-limits.ts";
import { decoderSource } from "./decoder-source.ts";
import type { DecodeJob, FromDecoder, ToDecoder } from "./protocol.ts";

/** An argument naming the process in `ps` and /proc/<pid>/cmdline (the CPU bench finds decoders by it). */
export const frameDecoderMarker = "media-runner-frame-decoder";

/** How long a new process may take to load FFmpeg's libraries and say it is ready. */
const startTimeoutMs = 15_000;
const pageBytes = 4096;

/** Answers the decoder's reads: bytes [offset, offset + length) of the job's file, fewer at its end. */
export type ByteReader = (offset: number, length: number) => Promise<Buffer>;

export type DecodeOutcome =
  | { status: "frame"; width: number; height: number; data: Buffer }
  | { status: "none" }
  | { status: "unsupported"; reason: string };

/** Why a decode ended without an answer; `crash` and `memory` and `failed` leave the job to the ffmpeg CLI. */
export class DecoderFailure extends Error {
  constructor(readonly kind: "crash" | "memory" | "failed" | "unavailable", message: string) {
    super(message);
  }
}

let nodeAvUrl: string | null | undefined;

/** node-av's entry as a file URL, or null when it is not installed (the runner then uses the ffmpeg CLI only). */
export function resolveNodeAv(): string | null {
  if (nodeAvUrl !== undefined) return nodeAvUrl;
  try {
    nodeAvUrl = pathToFileURL(createRequire(import.meta.url).resolve("node-av")).href;
  } catch {
    nodeAvUrl = null;
  }
  return nodeAvUrl;
}

function residentBytes(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * pageBytes;
  } catch {
    return undefined;
  }
}

export class DecoderProcess {
  private readonly child: ChildProcess;
  readonly ready: Promise<void>;
  private exited = false;
  private onExit: ((reason: DecoderFailure) => void) | undefined;
  busy = false;
  /** Handed to a job by the pool (decoder pool.ts), busy or not yet. */
  reserved = false;
  private nextId = 1;

  constructor(nodeAv: string, private readonly maxRssBytes = frameWorkerMaxRssBytes) {
    this.child = spawn(process.execPath, [`--max-old-space-size=${frameWorkerHeapMiB}`, "-e", decoderSource, "--", frameDecoderMarker, nodeAv], {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
      env: engineEnvironment(undefined),
    });
    let stderr = "";
    this.child.stderr?.setEncoding("utf8");
    this.child.stderr?.on("data", (text: string) => { stderr = (stderr + text).slice(-2_000); });
    this.child.on("error", () => {}); // reported through exit
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill();
        reject(new DecoderFailure("unavailable", "the frame decoder did not start in time"));
      }, startTimeoutMs);
      timer.unref();
      this.child.once("message", (m: FromDecoder) => {
        clearTimeout(timer);
        if (m.type === "ready") resolve();
        else reject(new DecoderFailure("unavailable", `unexpected first message ${m.type}`));
      });
      this.child.once("exit", (code, signal) => {
        clearTimeout(timer);
        this.exited = true;
        const failure = new DecoderFailure("crash", `the frame decoder exited (${signal ?? code})${stderr ? `: ${stderr.trim().slice(-300)}` : ""}`);
        reject(new DecoderFailure("unavailable", failure.message));
        this.onExit?.(failure);
      });
    });
    // Held while it starts (someone waits for it); once idle, a decoder does not keep the runner (or a test) alive.
    this.ready.then(() => { if (!this.busy) this.unref(); }, () => {});
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return !this.exited;
  }

  kill(): void {
    if (!this.exited) this.child.kill("SIGKILL");
  }

  private unref(): void {
    this.child.unref();
    (this.child.channel as { unref?: () => void } | null | undefined)?.unref?.();
    (this.child.stderr as { unref?: () => void } | null)?.unref?.();
  }

  private ref(): void {
    this.child.ref();
    (this.child.channel as { ref?: () => void } | null | undefined)?.ref?.();
    (this.child.stderr as { ref?: () => void } | null)?.ref?.();
  }

  /**
   * Decodes one frame. Settles after the process answered, or was killed (time limit, abort, memory) and has
   * exited: the caller then discards this process. `stop` kills it with the given error (the engine budget).
   */
  decode(job: Omit<DecodeJob, "type" | "id">, read: ByteReader, limits: { timeoutMs: number; signal?: AbortSignal; onStop?: (stop: (error: Error) => void) => void }): Promise<DecodeOutcome> {
    if (this.busy) return Promise.reject(new DecoderFailure("failed", "the frame decoder is busy"));
    if (this.exited) return Promise.reject(new DecoderFailure("crash", "the frame decoder has exited"));
    this.busy = true;
    this.ref();
    const id = this.nextId++;
    return new Promise<DecodeOutcome>((resolve, reject) => {
      let settled = false;
      let failure: Error | undefined;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(watch);
        limits.signal?.removeEventListener("abort", onAbort);
        this.child.off("message", onMessage);
        this.onExit = undefined;
        this.busy = false;
        this.unref();
        outcome();
      };
      // Killed: the answer is the reason, once the process is gone (no decoder outlives its job's walls).
      const stop = (error: Error) => {
        failure ??= error;
        if (this.exited) finish(() => reject(failure));
        else this.kill();
      };
      this.onExit = (crash) => finish(() => reject(failure ?? crash));
      const onMessage = (m: FromDecoder) => {
        if (m.type === "read" && m.id === id) {
          read(m.offset, m.length).then(
            (data) => this.send({ type: "bytes", seq: m.seq, data }),
            (error: unknown) => this.send({ type: "bytes", seq: m.seq, error: error instanceof Error ? error.message : String(error) }),
          );
        } else if (m.type === "done" && m.id === id) {
          if (failure) return; // being killed: the exit settles
          if (m.status === "frame") {
            const data = Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength);
            if (data.length !== m.width * m.height * 4) return finish(() => reject(new DecoderFailure("failed", "the decoder's picture has the wrong size")));
            finish(() => resolve({ status: "frame", width: m.width, height: m.height, data }));
          } else finish(() => resolve(m.status === "none" ? { status: "none" } : { status: "unsupported", reason: m.reason }));
        } else if (m.type === "failed" && m.id === id) {
          if (!failure) finish(() => reject(new DecoderFailure("failed", m.message)));
        }
      };
      const onAbort = () => stop(limits.signal?.reason instanceof RunnerError
        ? limits.signal.reason
        : new RunnerError("PROCESSING_TIMEOUT", "the job was cancelled", String(limits.signal?.reason)));
      const timer = setTimeout(
        () => stop(new RunnerError("PROCESSING_TIMEOUT", "media processing took too long", `the frame decoder ran past ${limits.timeoutMs} ms`)),
        limits.timeoutMs,
      );
      const watch = setInterval(() => {
        const rss = this.pid === undefined ? undefined : residentBytes(this.pid);
        if (rss !== undefined && rss > this.maxRssBytes) stop(new DecoderFailure("memory", `the frame decoder passed ${this.maxRssBytes} bytes resident`));
      }, frameWorkerRssPollMs);
      this.child.on("message", onMessage);
      limits.signal?.addEventListener("abort", onAbort, { once: true });
      if (limits.signal?.aborted) onAbort();
      limits.onStop?.(stop);
      if (!settled && !failure) this.send({ type: "job", id, ...job });
    });
  }

  /** After a job: a process that grew past half its memory limit is not kept for the next one. */
  get bloated(): boolean {
    const rss = this.pid === undefined ? undefined : residentBytes(this.pid);
    return rss === undefined || rss > this.maxRssBytes / 2;
  }

  private send(message: ToDecoder): void {
    if (this.exited || !this.child.connected) return;
    this.child.send(message, (error) => {
      if (error) this.kill();
    });
  }
}
