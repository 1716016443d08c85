/**
 * Builds the fastify app: auth, routes and the one error handler. No sockets are opened here besides the
 * loopback Range proxy, so tests drive it with app.inject.
 */
import { randomUUID } from "node:crypto";
import Fastify, { type FastifyInstance } from "fastify";
import sharp from "sharp";
import type { Dispatcher } from "undici";
import {
  RunnerRequest,
  runnerHealthPath,
  runnerProcessPath,
  runnerRequestMaxBytes,
  type RunnerErrorBody,
  type RunnerHealth,
  type RunnerResponse,
} from "../../shared/shapes/runner.ts";
import { RequestId } from "../../shared/schemas/request-id.ts";
import type { RunnerConfig } from "./config.ts";
import { RunnerError, isRunnerError } from "./errors.ts";
import { systemResolver, type Resolver } from "./fetch/resolver.ts";
import { createSsrfAgent } from "./fetch/ssrf-agent.ts";
import { bearerMatches } from "./http/auth.ts";
import { FairScheduler, flowOf } from "./scheduling/fair-scheduler.ts";
import { Shutdown, handBackRetryAfterSeconds } from "./http/shutdown.ts";
import type { Binaries } from "./media/binaries.ts";
import { DecoderPool } from "./media/engine-worker/pool.ts";
import { processJob, type JobStats } from "./pipeline/process-job.ts";
import { RangeProxy } from "./proxy/range-proxy.ts";

export const runnerVersion = "0.1.0";

/** The built app, for callers that do not depend on fastify themselves (tests). */
export type RunnerApp = FastifyInstance;

declare module "fastify" {
  interface FastifyInstance {
    /** Graceful shutdown of the job route (server.ts calls begin on SIGTERM). */
    shutdown: Shutdown;
  }
}

export interface AppOptions {
  config: RunnerConfig;
  binaries: Binaries;
  /** DNS for outbound requests; tests pass a fake one. */
  resolve?: Resolver;
  logger?: boolean;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
}


function errorBody(code: RunnerErrorBody["error"]["code"], message: string, usage?: RunnerErrorBody["error"]["usage"]): RunnerErrorBody {
  return { status: "error", error: { code, message, ...(usage ? { usage } : {}) } };
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, binaries } = options;
  // sharp's cache keeps decoded files and open handles between jobs; jobs are unrelated, so it only costs memory.
  sharp.cache(false);
  const app = Fastify({
    logger: options.logger === false ? false : { level: config.logLevel, ...(options.logStream ? { stream: options.logStream } : {}) },
    // The Worker sends the X-Request-Id of the inspection that started the job: every log line of the job
    // carries it (as the Worker's own lines do), so an operator can follow one request across both. A missing
    // or malformed one (the schema's bound and charset) gets a fresh id instead.
    requestIdLogLabel: "requestId",
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && RequestId.safeParse(given).success ? given : randomUUID();
    },
    // A URL and a few flags, plus the bytes the edge may hand over (RunnerRequest.head).
    bodyLimit: runnerRequestMaxBytes,
  });
  const proxy = new RangeProxy();
  await proxy.start();
  const dispatcher: Dispatcher = createSsrfAgent({
    allowlist: config.allowlist,
    resolve: options.resolve ?? systemResolver,
    connectTimeoutMs: config.fetchTimeoutMs,
  });
  const limiter = new FairScheduler({
    concurrency: config.concurrency,
    maxRunning: config.maxRunning,
    perFlowRunning: config.originJobs,
    maxQueue: config.maxQueue,
    perFlowQueue: config.originQueue,
    lendAfterMs: config.slotLendMs,
  });
  const decoders = config.frameDecoder ? DecoderPool.create(config.concurrency) : undefined;
  const shutdown = new Shutdown();
  app.decorate("shutdown", shutdown);
  app.addHook("onClose", async () => {
    await proxy.stop();
    await dispatcher.close();
    decoders?.close();
  });

  app.setErrorHandler((error, request, reply) => {
    if (isRunnerError(error)) {
      if (error.status >= 500) request.log.error({ code: error.code, detail: error.detail }, error.message);
      else request.log.info({ code: error.code, detail: error.detail }, error.message);
      // 503 means "not now": say when to come back (busy, or handed back during shutdown).
      if (error.status === 503) void reply.header("retry-after", String(handBackRetryAfterSeconds));
      return reply.code(error.status).send(errorBody(error.code, error.message, error.usage));
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return reply.code(status === 413 ? 413 : 400).send(errorBody("INVALID_PAYLOAD", (error as Error).message));
    }
    // Internals (paths, engine output) stay in the log.
    request.log.error(error);
    return reply.code(500).send(errorBody("INTERNAL_ERROR", "internal error"));
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(errorBody("NOT_FOUND", "no such route")));

  app.get(runnerHealthPath, async (): Promise<RunnerHealth> => ({
    status: "ok",
    version: runnerVersion,
    active: limiter.active,
    queued: limiter.queued,
    concurrency: limiter.concurrency,
  }));

  app.post(runnerProcessPath, async (request, reply): Promise<RunnerResponse> => {
    if (!bearerMatches(request.headers.authorization, config.token)) {
      void reply.header("www-authenticate", 'Bearer realm="media-runner"');
      throw new RunnerError("UNAUTHORIZED", "a valid bearer token is required");
    }
    const parsed = RunnerRequest.safeParse(request.body);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new RunnerError("INVALID_PAYLOAD", first ? `${first.path.join(".") || "body"}: ${first.message}` : "invalid body");
    }
    // A caller that hangs up no longer needs the result: stop fetching and kill the engines.
    const cancel = new AbortController();
    reply.raw.once("close", () => {
      if (!reply.raw.writableFinished) cancel.abort(new RunnerError("PROCESSING_TIMEOUT", "the caller went away"));
    });
    const job = { host: new URL(parsed.data.url).host, category: parsed.data.category, stages: parsed.data.stages, ...(parsed.data.client ? { client: parsed.data.client } : {}) };
    const received = performance.now();
    const stats: JobStats = {};
    let started = received;
    // One structured line per job (queue wait, run time and its steps, outcome); the request line fastify writes
    // has no job facts.
    const logJob = (outcome: string, code?: string, timings?: Record<string, number>, engineMs?: number) =>
      request.log.info({ job: { ...job, outcome, ...(code ? { code } : {}), waitMs: Math.round(started - received), ms: Math.round(performance.now() - started), ...(timings ? { timings } : {}), ...(engineMs !== undefined ? { engineMs } : {}), ...(stats.engines !== undefined ? { engines: stats.engines } : {}) } }, "job");
    const ticket = shutdown.admit();
    try {
      // A job still waiting for a slot when shutdown begins is handed back at once (ticket.handedBack).
      const result = await Promise.race([
        ticket.handedBack,
        // Each caller's jobs on an origin wait in their own line; a waiting job whose caller hangs up leaves it at once.
        limiter.run(flowOf(parsed.data.url), () => {
          if (ticket.signal.aborted) throw ticket.signal.reason;
          ticket.started();
          started = performance.now();
          const deadline = AbortSignal.timeout(config.jobTimeoutMs);
          const signal = AbortSignal.any([cancel.signal, deadline, ticket.signal]);
          return processJob(parsed.data, { config, binaries, proxy, dispatcher, signal, ...(decoders ? { decoders } : {}) }, stats).catch((error: unknown) => {
            if (ticket.signal.aborted) throw ticket.signal.reason;
            if (deadline.aborted) {
              const late = new RunnerError("PROCESSING_TIMEOUT", `the job ran past ${config.jobTimeoutMs} ms`);
              if (isRunnerError(error) && error.usage) late.usage = error.usage;
              throw late;
            }
            throw error;
          });
        }, AbortSignal.any([cancel.signal, ticket.signal]), parsed.data.client),
      ]);
      logJob("ok", undefined, result.timings, result.engineMs);
      return result;
    } catch (error) {
      logJob("error", isRunnerError(error) ? error.code : "INTERNAL_ERROR", undefined, isRunnerError(error) ? error.usage?.engineMs : undefined);
      throw error;
    } finally {
      ticket.done();
    }
  });

  return app;
}
