/** One request, start to end: open the source (SSRF checks, size cap), then the category's pipeline. */
import type { RunnerCategory, RunnerRequest, RunnerResponse } from "../../../shared/shapes/runner.ts";
import type { RemoteSource, SourceSeed } from "../fetch/remote-source.ts";
import { avFirstEnd, runAvJob } from "./av-job.ts";
import { Timings, newSource, seedOf, type JobContext } from "./context.ts";
import { imageFirstEnd, runImageJob } from "./image-job.ts";
import { runStreamJob } from "./stream-job.ts";
import { JobBudget, meteredDispatcher } from "../fetch/job-budget.ts";
import { EngineMeter, withEngineMeter } from "../media/engine-meter.ts";
import { inspectionEngineSecondsBudget } from "../../../shared/limits.ts";
import { isRunnerError } from "../errors.ts";

interface Pipeline {
  run(request: RunnerRequest, source: RemoteSource, ctx: JobContext, timings: Timings): Promise<Omit<RunnerResponse, "timings">>;
  /** The last byte from the start the job will need, when the edge's bytes tell (RemoteSource.open). */
  firstEnd(request: RunnerRequest, seed: SourceSeed | undefined, ctx: JobContext): Promise<number | undefined>;
}

const av: Pipeline = { run: runAvJob, firstEnd: avFirstEnd };
const pipelines: Readonly<Record<RunnerCategory, Pipeline>> = {
  video: av,
  audio: av,
  image: { run: runImageJob, firstEnd: imageFirstEnd },
};

/**
 * One job under its share of the inspection's budget: origin requests and bytes (the metered dispatcher) and
 * engine time (the meter every engine of the job registers with). What it spent goes back in the answer, or
 * on the error when it fails, so the Worker can charge it to the inspection whichever way the job ended.
 */
export async function processJob(request: RunnerRequest, base: JobContext, stats: JobStats = {}): Promise<RunnerResponse> {
  const engines = new EngineMeter(request.budget?.engineMs ?? inspectionEngineSecondsBudget * 1000);
  const budget = new JobBudget(request.budget);
  try {
    const result = await withEngineMeter(engines, () => runJob(request, base, budget));
    return { ...result, engineMs: engines.usedMs };
  } catch (error) {
    if (isRunnerError(error)) error.usage = { requests: budget.used.requests, bytes: budget.used.bytes, engineMs: engines.usedMs };
    throw error;
  } finally {
    stats.engines = engines.started;
  }
}

/** What the job's log line reports beside its answer: engine processes started (each costs its start-up). */
export interface JobStats {
  engines?: number;
}

async function runJob(request: RunnerRequest, base: JobContext, budget: JobBudget): Promise<RunnerResponse> {
  // Every origin request of the job goes through this dispatcher, so the inspection's budget bounds them all.
  const ctx: JobContext = { ...base, dispatcher: meteredDispatcher(base.dispatcher, budget), budget };
  // An HLS/DASH stream: previews from one segment through a manifest session (metadata came from the manifest).
  if (request.stream) {
    const result = await runStreamJob(request, request.stream, ctx);
    // A stream job opens several sources; the budget saw every hop of all of them.
    return { ...result, requests: result.requests ?? budget.used.requests };
  }
  const timings = new Timings();
  const started = performance.now();
  const seed = seedOf(request.head);
  const source = newSource(request.url, ctx, seed);
  const pipeline = pipelines[request.category];
  try {
    const firstEnd = await pipeline.firstEnd(request, seed, ctx);
    await timings.time("fetch", () => source.open(firstEnd));
    const result = await pipeline.run(request, source, ctx, timings);
    return { ...result, timings: { ...timings.values, total: Math.round(performance.now() - started) }, bytesFetched: source.bytesFetched, requests: source.requests, redirects: source.redirects };
  } catch (error) {
    throw source.failure ?? error;
  } finally {
    source.close();
  }
}
