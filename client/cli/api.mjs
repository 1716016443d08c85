// The calls the command makes, through the typed client (client/index.ts: hono/client over the Worker's AppType).
// Plain JavaScript so it runs with `node` after `npm ci`; the types come from the same AppType via JSDoc, and
// `tsc -p client` checks every call against the API's route definitions.
import { hc } from "hono/client";

/** @typedef {import("../index.ts").AppType} AppType */
/** @typedef {import("../index.ts").InspectResponse} InspectResponse */
/** @typedef {import("../index.ts").EmbedResponse} EmbedResponse */
/** @typedef {import("../index.ts").JobResource} JobResource */
/** @typedef {import("../index.ts").ErrorBody} ErrorBody */
/** @typedef {import("../../shared/schemas/inspect.ts").Profile} Profile */

/**
 * `hc` instantiated with the API's routes: what `createClient` in client/index.ts calls as `hc<AppType>`. JSDoc
 * cannot pass a type argument to a call, so the instantiation is written as a cast of the same function.
 */
const typedClient = /** @type {typeof hc<AppType>} */ (/** @type {unknown} */ (hc));

/** Longest wait for one answer (a `full` inspection waits for every enrichment). */
export const requestTimeoutMs = 120_000;

/** The service could not be reached, or what answered is not this API. */
export class Unreachable extends Error {}

/** The API answered with its error envelope. */
export class ApiFailure extends Error {
  /** @param {number} status @param {ErrorBody["error"]} error */
  constructor(status, error) {
    super(`${error.code}: ${error.message}`);
    this.status = status;
    this.error = error;
  }
}

/**
 * @typedef {object} Query
 * @property {Profile} [profile]
 * @property {string} [fields]
 * @property {string} [expand]
 */

/** @param {string} service */
export function createApi(service) {
  const api = typedClient(service);
  const timed = () => ({ init: { signal: AbortSignal.timeout(requestTimeoutMs) } });
  return {
    /**
     * POST /api/v1/inspect: the answer's status, its body parsed and its exact text.
     * @param {string} url @param {Query} query
     */
    async inspect(url, query) {
      const res = await reach(service, () => api.api.v1.inspect.$post({ query: definedOnly(query), json: { url } }, timed()));
      const text = await res.text();
      return { status: res.status, text, body: /** @type {InspectResponse | EmbedResponse} */ (answerOf(service, res, text)), retryAfter: Number(res.headers.get("retry-after") ?? "1") };
    },
    /** GET /api/v1/job/{id} @param {string} id */
    async job(id) {
      const res = await reach(service, () => api.api.v1.job[":id"].$get({ param: { id } }, timed()));
      return /** @type {JobResource} */ (answerOf(service, res, await res.text()));
    },
    /**
     * POST /api/v1/inspect/batch: each URL's answer or error envelope, in order.
     * @param {string[]} urls @param {Query} query
     */
    async batch(urls, query) {
      const res = await reach(service, () => api.api.v1.inspect.batch.$post({ query: definedOnly(query), json: { urls } }, timed()));
      const body = /** @type {{ success: true, results: (InspectResponse | EmbedResponse | ErrorBody)[] }} */ (answerOf(service, res, await res.text()));
      return body.results;
    },
  };
}

/** @param {Query} query */
function definedOnly(query) {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
}

/**
 * Runs a request; a network failure (refused, reset, unknown host, timeout) is Unreachable.
 * @template {{ status: number }} R
 * @param {string} service @param {() => Promise<R>} send
 * @returns {Promise<R & Response>}
 */
async function reach(service, send) {
  try {
    return /** @type {R & Response} */ (await send());
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
    const code = cause && typeof cause === "object" && "code" in cause ? String(cause.code) : cause instanceof Error ? cause.message : String(cause);
    throw new Unreachable(`cannot reach the service at ${service} (${code})`);
  }
}

/**
 * The API's JSON answer; its error envelope throws ApiFailure; anything else means another server answered.
 * @param {string} service @param {Response} res @param {string} text
 * @returns {unknown}
 */
function answerOf(service, res, text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Unreachable(`${service} answered ${res.status} with something other than this API's JSON`);
  }
  if (body && body.status === "error" && body.error && typeof body.error.code === "string") throw new ApiFailure(res.status, body.error);
  if (!res.ok) throw new Unreachable(`${service} answered ${res.status} with something other than this API's JSON`);
  return body;
}
