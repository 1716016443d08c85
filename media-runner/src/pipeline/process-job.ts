/** One request, start to end: open the source (SSRF checks, size cap), then the category's pipeline. */
import type { RunnerCategory, RunnerRequest, RunnerResponse } from "../../../shared/shapes/runner.ts";
import type { RemoteSource, SourceSeed } from "../fetch/remote-source.ts";
import { avFirstEnd, runAvJob } from "./av-job.ts";
import { Timings, newSource, seedOf, type JobContext } from "./context.ts";
import { imageFirstEnd, runImageJob } from "./image-job.ts";
import { runStreamJob } from "./stream-job.ts";
import { JobBudget, meteredDispatcher } from "../fetch/job-budget.ts";

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

export async function processJob(request: RunnerRequest, base: JobContext): Promise<RunnerResponse> {
  // Every origin request of the job goes through this dispatcher, so the inspection's budget bounds them all.
  const budget = new JobBudget(request.budget);
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
