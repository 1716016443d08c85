/**
 * Engine processes are started off the runner's event loop. `child_process.spawn` is
 * synchronous: libuv forks the runner and waits until the child has exec'd. Under load that took 28 to 369 ms
 * per engine (median 112 ms, measured with the CPU profiler during `npm run starvation`), and for all that time
 * the event loop served nobody: every other job's Range proxy, origin reads and answers stood still, so twelve
 * slow-origin jobs starting their engines stalled an unrelated job's engine that was waiting for bytes.
 *
 * Here a worker thread runs spawn and collects the child's output; the event loop only exchanges messages. There
 * are two such threads: one for the engines of jobs that hold a runner slot and one for those of lent jobs
 * (engine-priority.ts), so a pile of lent jobs starting engines does not queue ahead of a slot holder's. A lent
 * job's engine gets its nice value in the thread right after the fork, before it can use much CPU.
 *
 * The thread's code is plain JavaScript evaluated from a string, so the same code runs from the TypeScript
 * sources (tsx, vitest) and the compiled image without a second entry file.
 */
import { Worker } from "node:worker_threads";

export interface LaunchOptions {
  env: NodeJS.ProcessEnv;
  /** Output past this many bytes kills the child (`overflow` in the result). */
  maxStdoutBytes: number;
  /** The last this many characters of stderr are kept. */
  maxStderrChars: number;
  /** Nice value given to the child right after the fork (0: the runner's own). */
  nice: number;
  /** Bytes written to the child's stdin, which is then closed (the storyboard's keyframes); none: stdin is /dev/null. */
  stdin?: Uint8Array;
}

export interface LaunchResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** The child was killed because its output passed maxStdoutBytes. */
  overflow: boolean;
}

export interface Launch {
  /** The child's pid once it runs (undefined if it could not be started). */
  pid: Promise<number | undefined>;
  /** Settles after the child has exited and been reaped; rejects with the spawn error if it never started. */
  done: Promise<LaunchResult>;
  /** SIGKILL, if the child still runs. */
  kill(): void;
}

const launcherSource = String.raw`
const { parentPort } = require("node:worker_threads");
const { spawn } = require("node:child_process");
const { setPriority } = require("node:os");
const children = new Map();
parentPort.on("message", (m) => {
  if (m.type === "kill") {
    const child = children.get(m.id);
    if (child) child.kill("SIGKILL");
    return;
  }
  let child;
  try {
    child = spawn(m.file, m.argv, { stdio: [m.stdin ? "pipe" : "ignore", "pipe", "pipe"], env: m.env });
  } catch (error) {
    parentPort.postMessage({ type: "error", id: m.id, message: String((error && error.message) || error) });
    return;
  }
  if (child.pid !== undefined && m.nice !== 0) {
    try { setPriority(child.pid, m.nice); } catch {}
  }
  if (m.stdin && child.stdin) {
    // An engine that stops reading early (it failed, or has what it wanted) closes the pipe: not an error here.
    child.stdin.on("error", () => {});
    child.stdin.end(Buffer.from(m.stdin.buffer, m.stdin.byteOffset, m.stdin.byteLength));
  }
  children.set(m.id, child);
  parentPort.postMessage({ type: "spawned", id: m.id, pid: child.pid });
  const chunks = [];
  let bytes = 0;
  let overflow = false;
  let stderr = "";
  let failed = false;
  child.stdout.on("data", (chunk) => {
    if (overflow) return;
    bytes += chunk.length;
    if (bytes > m.maxStdoutBytes) {
      overflow = true;
      chunks.length = 0;
      child.kill("SIGKILL");
      return;
    }
    chunks.push(chunk);
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text) => { stderr = (stderr + text).slice(-m.maxStderrChars); });
  child.once("error", (error) => {
    failed = true;
    children.delete(m.id);
    parentPort.postMessage({ type: "error", id: m.id, message: error.message });
  });
  child.once("close", (code) => {
    children.delete(m.id);
    if (failed) return;
    const out = Buffer.concat(chunks);
    const bytesOut = out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
    parentPort.postMessage({ type: "close", id: m.id, code, overflow, stdout: bytesOut, stderr }, [bytesOut]);
  });
});
`;

interface Pending {
  pid: (pid: number | undefined) => void;
  resolve: (result: LaunchResult) => void;
  reject: (error: Error) => void;
}

type Message =
  | { type: "spawned"; id: number; pid: number | undefined }
  | { type: "error"; id: number; message: string }
  | { type: "close"; id: number; code: number | null; overflow: boolean; stdout: ArrayBuffer; stderr: string };

class Launcher {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  private thread(): Worker {
    if (this.worker) return this.worker;
    // No execArgv: the thread needs no loader or profiler flags of the runner's command line.
    const worker = new Worker(launcherSource, { eval: true, execArgv: [] });
    worker.on("message", (message: Message) => this.onMessage(message));
    const lost = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const pending of this.pending.values()) pending.reject(error);
      this.pending.clear();
    };
    worker.on("error", lost);
    worker.on("exit", (code) => lost(new Error(`engine launcher thread exited (${code})`)));
    // Like a child process handle, the thread keeps the runner alive only while an engine runs.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private onMessage(message: Message): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === "spawned") return pending.pid(message.pid);
    this.pending.delete(message.id);
    if (this.pending.size === 0) this.worker?.unref();
    pending.pid(undefined);
    if (message.type === "error") return pending.reject(new Error(message.message));
    pending.resolve({ code: message.code, overflow: message.overflow, stdout: Buffer.from(message.stdout), stderr: message.stderr });
  }

  launch(file: string, argv: readonly string[], options: LaunchOptions): Launch {
    const id = this.nextId++;
    let settlePid!: (pid: number | undefined) => void;
    const pid = new Promise<number | undefined>((resolve) => (settlePid = resolve));
    let done!: Promise<LaunchResult>;
    let worker: Worker;
    try {
      worker = this.thread();
      done = new Promise<LaunchResult>((resolve, reject) => this.pending.set(id, { pid: settlePid, resolve, reject }));
      worker.ref();
      worker.postMessage({ type: "launch", id, file, argv: [...argv], ...options });
    } catch (error) {
      settlePid(undefined);
      done = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return {
      pid,
      done,
      kill: () => {
        if (this.pending.has(id)) this.worker?.postMessage({ type: "kill", id });
      },
    };
  }
}

/** Engines of jobs holding a runner slot, and of lent jobs. */
const foreground = new Launcher();
const background = new Launcher();

/** Starts `file` with `argv` from a launcher thread; `options.nice` > 0 uses the lent jobs' thread. */
export function launchEngine(file: string, argv: readonly string[], options: LaunchOptions): Launch {
  return (options.nice > 0 ? background : foreground).launch(file, argv, options);
}
