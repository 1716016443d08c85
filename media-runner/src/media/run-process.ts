/**
 * Runs an engine as a child process with a hard time limit and an output cap. The child is killed
 * (SIGKILL: ffmpeg blocked on I/O can ignore SIGTERM) on timeout, overflow or abort, and the promise settles
 * only after the child has exited, so no process outlives its job and none is left a zombie.
 */
import { spawn } from "node:child_process";
import { RunnerError } from "../errors.ts";

export interface RunOptions {
  timeoutMs: number;
  maxStdoutBytes: number;
  signal?: AbortSignal;
}

export interface RunResult {
  code: number | null;
  stdout: Buffer;
  /** The last few kB of stderr, for error details. */
  stderr: string;
}

const maxStderrChars = 4_000;

export function runProcess(command: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = "";
    let failure: RunnerError | undefined;
    const kill = (error: RunnerError) => {
      failure ??= error;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(
      () => kill(new RunnerError("PROCESSING_TIMEOUT", "media processing took too long", `${command} ran past ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const onAbort = () => kill(options.signal?.reason instanceof RunnerError
      ? options.signal.reason
      : new RunnerError("PROCESSING_TIMEOUT", "the job was cancelled", String(options.signal?.reason)));
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > options.maxStdoutBytes) {
        return kill(new RunnerError("CORRUPT_MEDIA", "the engine produced too much output", `${command} stdout > ${options.maxStdoutBytes} bytes`));
      }
      chunks.push(chunk);
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => {
      stderr = (stderr + text).slice(-maxStderrChars);
    });
    const settle = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    };
    child.once("error", (error) => {
      settle();
      reject(new RunnerError("INTERNAL_ERROR", "a media engine could not be started", `${command}: ${error.message}`));
    });
    child.once("close", (code) => {
      settle();
      if (failure) reject(failure);
      else resolve({ code, stdout: Buffer.concat(chunks), stderr });
    });
  });
}
