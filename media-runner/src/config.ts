/**
 * All runner configuration, read once from the environment and validated at start. A bad value stops the
 * runner with a message naming the variable and the expected format.
 */
import { MAX_SOURCE_BYTES } from "../../shared/limits.ts";
import { z } from "zod";
import { parseAllowlist, type Allowlist } from "../../shared/net/index.ts";

const integer = (min: number, max: number) =>
  z.string().trim().regex(/^\d+$/, "expected a whole number").transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** Every variable with its default; a default of undefined means "required" or "empty". */
const Env = z.object({
  /** TCP port of the HTTP API. */
  RUNNER_PORT: integer(0, 65_535).default(8788),
  /** Interface to listen on; 0.0.0.0 inside a container. */
  RUNNER_HOST: z.string().trim().min(1).default("127.0.0.1"),
  /** Shared bearer token the Worker sends; required (at least 16 characters). */
  RUNNER_TOKEN: z.string().min(16, "must be at least 16 characters (e.g. `openssl rand -hex 32`)"),
  /** Jobs processed at once; each runs ffprobe/ffmpeg/sharp, so about one per core. */
  RUNNER_CONCURRENCY: integer(1, 64).default(2),
  /** Jobs allowed to wait for a slot; beyond that the runner answers 503 RUNNER_BUSY. */
  RUNNER_MAX_QUEUE: integer(0, 10_000).default(32),
  /** Jobs under way at once, those that lent their slot included (bounds memory); default 8 per slot. */
  RUNNER_MAX_RUNNING: integer(1, 1_024).optional(),
  /** Jobs of one origin under way at once; default RUNNER_CONCURRENCY. */
  RUNNER_ORIGIN_JOBS: integer(1, 1_024).optional(),
  /** A job still running after this many ms (waiting on a slow origin, as a rule) lends its slot to the next job. */
  RUNNER_SLOT_LEND_MS: integer(10, 600_000).default(1_000),
  /** Cap on bytes pulled from the origin per job (and on the announced size): the shared 50 MiB. */
  RUNNER_MAX_SOURCE_BYTES: integer(1, 2 ** 40).default(MAX_SOURCE_BYTES),
  /** Deadline of each outbound request (connect, headers and body). */
  RUNNER_FETCH_TIMEOUT_MS: integer(1, 600_000).default(10_000),
  /** Redirect hops followed by hand, each re-checked against the SSRF policy. */
  RUNNER_MAX_REDIRECTS: integer(0, 20).default(5),
  /** Images with more pixels are refused before decoding (decompression bombs). */
  RUNNER_MAX_DECODE_PIXELS: integer(1, 2 ** 31).default(50_000_000),
  /** Time limit of each ffprobe/ffmpeg run; the process is killed when it passes. */
  RUNNER_PROCESS_TIMEOUT_MS: integer(100, 600_000).default(20_000),
  /** Whole-job limit, queue wait excluded. */
  RUNNER_JOB_TIMEOUT_MS: integer(100, 600_000).default(45_000),
  /** On SIGTERM: how long running jobs may finish before they are handed back (503 + Retry-After). */
  RUNNER_SHUTDOWN_GRACE_MS: integer(0, 600_000).default(8_000),
  /** Test/dev only: addresses allowed although private, e.g. "127.0.0.1:8080". Empty in production. */
  SSRF_ALLOWLIST: z.string().optional(),
  /** Explicit engine paths; otherwise PATH, then the packaged npm binaries. */
  FFMPEG_PATH: z.string().trim().min(1).optional(),
  FFPROBE_PATH: z.string().trim().min(1).optional(),
  /** "production" in the container image: refuses SSRF_ALLOWLIST and the packaged (2018) ffmpeg. */
  NODE_ENV: z.string().optional(),
  /**
   * Video frames from MP4/MOV and Matroska/WebM decoded in long-lived decoder processes (node-av, one per job
   * slot, fed only the runner's bytes) instead of an ffmpeg run each: "off" keeps every frame on the ffmpeg CLI.
   * On by default where node-av is installed; the CLI stays the fallback either way.
   */
  RUNNER_FRAME_DECODER: z.enum(["on", "off"]).default("on"),
  /** fastify (pino) log level. */
  RUNNER_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("warn"),
});

/** Default jobs under way per busy slot (RUNNER_MAX_RUNNING): room for lent slots, still a bound on memory. */
export const RUNNING_PER_SLOT = 8;
/** One origin may fill at most this fraction of the queue (1 / ORIGIN_QUEUE_SHARE), so others still get in. */
export const ORIGIN_QUEUE_SHARE = 4;
/**
 * Fairness between origins (scheduling/fair-scheduler.ts). An origin with at least this many jobs in
 * the runner (under way or waiting) is crowded: a job of an origin with nothing under way takes its busy slot at
 * once (that job goes on, lent) instead of waiting up to RUNNER_SLOT_LEND_MS for a lend, and its engines run in
 * the background while a light origin has a job under way.
 */
export const PREEMPT_FLOW_JOBS = 2;
/**
 * Nice value of background engines: those of an origin's jobs other than its oldest one under way
 * (media/engine-priority.ts). The lowest, so they get only the CPU the foreground jobs leave: one ffmpeg start
 * costs about 200 ms of CPU, and at nice 10 (weight 110 against 1024) eight background engines together
 * weighed nearly as much as one foreground job; at 19 (weight 15) they weigh about a tenth.
 */
export const BACKGROUND_ENGINE_NICE = 19;

export interface RunnerConfig {
  port: number;
  host: string;
  token: string;
  concurrency: number;
  maxQueue: number;
  /** Jobs under way at once, lent slots included. */
  maxRunning: number;
  /** Jobs of one origin under way at once. */
  originJobs: number;
  /** Jobs of one origin waiting at once. */
  originQueue: number;
  slotLendMs: number;
  maxSourceBytes: number;
  fetchTimeoutMs: number;
  maxRedirects: number;
  maxDecodePixels: number;
  processTimeoutMs: number;
  jobTimeoutMs: number;
  shutdownGraceMs: number;
  allowlist: Allowlist;
  ffmpegPath?: string;
  ffprobePath?: string;
  logLevel: string;
  /** RUNNER_FRAME_DECODER=on: frames in decoder processes where they can be (media/engine-worker/). */
  frameDecoder: boolean;
  /** NODE_ENV=production (the container image sets it). */
  production: boolean;
}

export class ConfigError extends Error {}

/** Reads and validates the configuration; throws ConfigError listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): RunnerConfig {
  // Empty strings count as unset, as in most env-file tooling.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = Env.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`invalid runner configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  let allowlist: Allowlist;
  try {
    allowlist = parseAllowlist(e.SSRF_ALLOWLIST, { production: e.NODE_ENV === "production" });
  } catch (error) {
    throw new ConfigError(`invalid runner configuration:\n  ${(error as Error).message}`);
  }
  return {
    port: e.RUNNER_PORT,
    host: e.RUNNER_HOST,
    token: e.RUNNER_TOKEN,
    concurrency: e.RUNNER_CONCURRENCY,
    maxQueue: e.RUNNER_MAX_QUEUE,
    maxRunning: e.RUNNER_MAX_RUNNING ?? e.RUNNER_CONCURRENCY * RUNNING_PER_SLOT,
    originJobs: e.RUNNER_ORIGIN_JOBS ?? e.RUNNER_CONCURRENCY,
    originQueue: Math.max(1, Math.ceil(e.RUNNER_MAX_QUEUE / ORIGIN_QUEUE_SHARE)),
    slotLendMs: e.RUNNER_SLOT_LEND_MS,
    maxSourceBytes: e.RUNNER_MAX_SOURCE_BYTES,
    fetchTimeoutMs: e.RUNNER_FETCH_TIMEOUT_MS,
    maxRedirects: e.RUNNER_MAX_REDIRECTS,
    maxDecodePixels: e.RUNNER_MAX_DECODE_PIXELS,
    processTimeoutMs: e.RUNNER_PROCESS_TIMEOUT_MS,
    jobTimeoutMs: e.RUNNER_JOB_TIMEOUT_MS,
    shutdownGraceMs: e.RUNNER_SHUTDOWN_GRACE_MS,
    allowlist,
    ...(e.FFMPEG_PATH ? { ffmpegPath: e.FFMPEG_PATH } : {}),
    ...(e.FFPROBE_PATH ? { ffprobePath: e.FFPROBE_PATH } : {}),
    logLevel: e.RUNNER_LOG_LEVEL,
    frameDecoder: e.RUNNER_FRAME_DECODER === "on",
    production: e.NODE_ENV === "production",
  };
}
