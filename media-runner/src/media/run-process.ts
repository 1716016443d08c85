/**
 * Runs an engine as a child process with a hard time limit and an output cap. The child is killed
 * (SIGKILL: ffmpeg blocked on I/O can ignore SIGTERM) on timeout, overflow or abort, and the promise settles
 * only after the child has exited, so no process outlives its job and none is left a zombie.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { RunnerError } from "../errors.ts";
import { launchEngine } from "./engine-launcher.ts";
import { currentEngineMeter } from "./engine-meter.ts";
import { currentEnginePriority } from "./engine-priority.ts";
import { engineAddressSpaceBytes } from "./engine-limits.ts";

export interface RunOptions {
  timeoutMs: number;
  maxStdoutBytes: number;
  signal?: AbortSignal;
  /** RLIMIT_AS of the child; default engineAddressSpaceBytes(). */
  addressSpaceBytes?: number;
  /**
   * The runner's loopback proxy (http://127.0.0.1:<port>): every HTTP request of the child is sent to it,
   * whatever URL it names. Without one the child can open no HTTP connection at all (engineNoNetworkProxy).
   */
  httpProxy?: string;
  /** Bytes written to the child's standard input (then closed); without it stdin is closed from the start. */
  stdin?: Buffer;
  /** Variables added to the child's environment. */
  extraEnv?: Record<string, string>;
}

export interface RunResult {
  code: number | null;
  stdout: Buffer;
  /** The last few kB of stderr, for error details. */
  stderr: string;
}

const maxStderrChars = 4_000;

/**
 * The address-space limit is set by util-linux `prlimit`, which sets RLIMIT_AS on itself and execs the
 * engine in the same process (so the pid, the SIGKILL on timeout and the exit code stay the engine's).
 * Node's spawn cannot set rlimits, and Node's own resource limits cover only its heap, not a child.
 * util-linux is Essential in Debian, so the container has it; where it is missing the engines run with
 * ffmpeg's per-allocation cap only (`-max_alloc`, always passed), and the runner warns once.
 */
export const prlimitCandidates = ["/usr/bin/prlimit", "/bin/prlimit"];

let prlimitPath: string | null | undefined;

function findPrlimit(): string | null {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "").map((dir) => join(dir, "prlimit"));
  for (const file of [...prlimitCandidates, ...dirs]) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  console.warn("media-runner: prlimit (util-linux) not found; ffmpeg/ffprobe run without an address-space limit");
  return null;
}

/** The command line that runs `command` under the address-space limit, or unchanged without prlimit. */
export function limitedCommand(command: string, args: readonly string[], addressSpaceBytes: number): [string, string[]] {
  prlimitPath ??= findPrlimit();
  if (prlimitPath === null) return [command, [...args]];
  return [prlimitPath, [`--as=${addressSpaceBytes}`, "--", command, ...args]];
}

/**
 * The proxy of a child that needs no network: ffmpeg's tcp protocol refuses port 0 ("Port missing in uri")
 * before it creates a socket, so every HTTP open fails without a connection.
 */
export const engineNoNetworkProxy = "http://127.0.0.1:0";

/** Proxy variables a child must not inherit: no_proxy would exempt hosts from the proxy, the others redirect it. */
const proxyVariables = new Set(["http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy"]);

/**
 * The engine's environment: the runner's, less every proxy variable, plus http_proxy. ffmpeg's http protocol
 * reads http_proxy on every open (nested HLS opens, redirects and crypto-wrapped URLs included) and then
 * connects to the proxy only, sending the target as an absolute-form request line; the proxy answers only
 * targets it registered (range-proxy.ts). A URL that escaped every other check still reaches nothing else.
 */
export function engineEnvironment(httpProxy: string | undefined, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) if (!proxyVariables.has(name.toLowerCase())) env[name] = value;
  env.http_proxy = httpProxy ?? engineNoNetworkProxy;
  return env;
}

/**
 * The child is started from a launcher thread (engine-launcher.ts), never by a spawn on the event loop: a fork
 * there stalled every job's proxy for 30 to 370 ms per engine under load.
 */
export function runProcess(command: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    let failure: RunnerError | undefined;
    let killEngine = () => {};
    const kill = (error: RunnerError) => {
      failure ??= error;
      killEngine();
    };
    // The job's engine-time budget: refused here when spent, killed when it runs out (engine-meter.ts).
    let metered: () => void;
    try {
      metered = currentEngineMeter()?.start(kill) ?? (() => {});
    } catch (error) {
      reject(error);
      return;
    }
    const [file, argv] = limitedCommand(command, args, options.addressSpaceBytes ?? engineAddressSpaceBytes());
    const priority = currentEnginePriority();
    const launch = launchEngine(file, argv, {
      env: { ...engineEnvironment(options.httpProxy), ...options.extraEnv },
      maxStdoutBytes: options.maxStdoutBytes,
      maxStderrChars,
      nice: priority?.nice ?? 0,
      ...(options.stdin ? { stdin: options.stdin } : {}),
    });
    let exited = false;
    let untrack: (() => void) | undefined;
    void launch.pid.then((pid) => {
      if (pid !== undefined && !exited) untrack = priority?.track(pid);
    });
    killEngine = () => launch.kill();
    const timer = setTimeout(
      () => kill(new RunnerError("PROCESSING_TIMEOUT", "media processing took too long", `${command} ran past ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const onAbort = () => kill(options.signal?.reason instanceof RunnerError
      ? options.signal.reason
      : new RunnerError("PROCESSING_TIMEOUT", "the job was cancelled", String(options.signal?.reason)));
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const settle = () => {
      exited = true;
      metered();
      untrack?.();
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    };
    launch.done.then(
      ({ code, stdout, stderr, overflow }) => {
        settle();
        if (overflow) failure ??= new RunnerError("CORRUPT_MEDIA", "the engine produced too much output", `${command} stdout > ${options.maxStdoutBytes} bytes`);
        if (failure) reject(failure);
        // prlimit could not exec the engine (126/127): the same case as a failed spawn below.
        else if (file !== command && (code === 126 || code === 127) && stderr.startsWith("prlimit:")) {
          reject(new RunnerError("INTERNAL_ERROR", "a media engine could not be started", stderr.trim()));
        }
        else resolve({ code, stdout, stderr });
      },
      (error: Error) => {
        settle();
        reject(new RunnerError("INTERNAL_ERROR", "a media engine could not be started", `${command}: ${error.message}`));
      },
    );
  });
}
