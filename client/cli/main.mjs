// media-inspect: the command's logic, free of process globals so tests and the entry file share it.
import { readFile } from "node:fs/promises";
import { ApiFailure, createApi, Unreachable } from "./api.mjs";
import { parseCommand, usage, UsageError } from "./args.mjs";
import { progressOn } from "./progress.mjs";
import { palette, summarize } from "./summary.mjs";

/** @typedef {import("../index.ts").InspectResponse} InspectResponse */
/** @typedef {import("../index.ts").EmbedResponse} EmbedResponse */

/** Exit statuses. */
export const exitCodes = { answered: 0, failed: 1, usage: 2, unreachable: 3 };

/** Longest time a background job is followed before the command gives up and prints what it has. */
export const jobFollowLimitMs = 10 * 60_000;
/** Polling interval bounds (the 202's Retry-After is used within them). */
const minPollMs = 500;
const maxPollMs = 2_000;
/** URLs one batch request carries (the API's own limit, maxBatchUrls). */
export const batchChunk = 20;

/**
 * @typedef {object} Io
 * @property {NodeJS.WriteStream | NodeJS.WritableStream} stdout
 * @property {NodeJS.WriteStream | NodeJS.WritableStream} stderr
 * @property {Record<string, string | undefined>} env
 * @property {() => Promise<string>} readStdin
 */

/**
 * @param {string[]} argv
 * @param {Io} io
 * @returns {Promise<number>} the exit status
 */
export async function main(argv, io) {
  try {
    const command = parseCommand(argv, io.env);
    if (command.kind === "help") {
      io.stdout.write(`${usage}\n`);
      return exitCodes.answered;
    }
    const api = createApi(command.service);
    if (command.kind === "batch") return await runBatch(api, /** @type {string} */ (command.target), command.query, io);
    return await runInspect(api, /** @type {string} */ (command.target), command, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`media-inspect: ${err.message}\nRun media-inspect --help for usage.\n`);
      return exitCodes.usage;
    }
    if (err instanceof Unreachable) {
      io.stderr.write(`media-inspect: ${err.message}. Start it with \`npm start\`, or name it with --service URL or MEDIA_INSPECT_URL.\n`);
      return exitCodes.unreachable;
    }
    if (err instanceof ApiFailure) {
      io.stderr.write(`media-inspect: ${err.error.code}: ${err.error.message}${err.error.reason ? ` (reason: ${err.error.reason})` : ""}\n`);
      return exitCodes.failed;
    }
    throw err;
  }
}

/**
 * One URL: inspect; when the answer is partial with a job (standard on heavy media), follow the job with progress
 * on stderr, then ask again: the complete answer comes from the service's cache.
 * @param {ReturnType<typeof createApi>} api @param {string} url
 * @param {import("./args.mjs").Command} command @param {Io} io
 */
async function runInspect(api, url, command, io) {
  let answer = await api.inspect(url, command.query);
  const job = "job" in answer.body ? answer.body.job : undefined;
  if (answer.status === 202 && job) {
    await followJob(api, job.id, answer.retryAfter, io);
    answer = await api.inspect(url, command.query);
  }
  if (command.json) {
    io.stdout.write(answer.text.endsWith("\n") ? answer.text : `${answer.text}\n`);
  } else {
    const colors = palette("isTTY" in io.stdout && io.stdout.isTTY === true && !io.env.NO_COLOR);
    io.stdout.write(`${summarize(answer.body, command.service, colors)}\n`);
  }
  return exitCodes.answered;
}

/**
 * Polls the job until it is completed or failed (or the follow limit passes).
 * @param {ReturnType<typeof createApi>} api @param {string} id @param {number} retryAfterSeconds @param {Io} io
 */
async function followJob(api, id, retryAfterSeconds, io) {
  const progress = progressOn(io.stderr);
  const pollMs = Math.min(maxPollMs, Math.max(minPollMs, retryAfterSeconds * 1000));
  const deadline = Date.now() + jobFollowLimitMs;
  try {
    for (;;) {
      const { job } = await api.job(id);
      progress.update(job.progress, `job ${job.status}`);
      if (job.status === "completed" || job.status === "failed" || Date.now() > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } finally {
    progress.done();
  }
}

/**
 * A file of URLs through the batch endpoint, 20 a request, one JSON line per URL in order.
 * @param {ReturnType<typeof createApi>} api @param {string} file
 * @param {import("./args.mjs").Command["query"]} query @param {Io} io
 */
async function runBatch(api, file, query, io) {
  let text;
  try {
    text = file === "-" ? await io.readStdin() : await readFile(file, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const urls = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"));
  if (urls.length === 0) throw new UsageError(`${file} names no URL`);
  let failures = 0;
  for (let start = 0; start < urls.length; start += batchChunk) {
    for (const result of await api.batch(urls.slice(start, start + batchChunk), query)) {
      if ("status" in result && result.status === "error") failures++;
      io.stdout.write(`${JSON.stringify(result)}\n`);
    }
  }
  if (failures > 0) io.stderr.write(`media-inspect: ${failures} of ${urls.length} URLs failed (their error envelopes are in the output)\n`);
  return failures > 0 ? exitCodes.failed : exitCodes.answered;
}
