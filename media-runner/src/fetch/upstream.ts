/**
 * One GET to the origin, redirects followed by hand so that every hop is re-checked. Outbound headers are
 * built from scratch: nothing from the caller or from ffmpeg (cookies, authorization, forwarding headers,
 * its user agent) is passed on.
 */
import type { Readable } from "node:stream";
import { errors as undiciErrors, request, type Dispatcher } from "undici";
import { classifyUrlHost, type Allowlist } from "../../../shared/net/index.ts";
import { MAX_SOURCE_BYTES } from "../../../shared/limits.ts";
import { RunnerError, isRunnerError } from "../errors.ts";
import { originLimiter, type OriginLimiter } from "./origin-slots.ts";

export interface UpstreamContext {
  dispatcher: Dispatcher;
  allowlist: Allowlist;
  maxRedirects: number;
  /** Deadline of one request: connect, headers and the whole body. */
  fetchTimeoutMs: number;
  /** Cancels everything for the job (client gone, job timeout). */
  signal?: AbortSignal;
  /** Per-origin cap on header-waiting requests (default: the runner's shared one). */
  originLimiter?: OriginLimiter;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: Readable;
  finalUrl: URL;
  /** Redirect hops followed to get here. */
  redirects: number;
}

/** Neutral headers: media bytes as stored (no compression, so byte ranges mean file offsets). */
const outboundHeaders = { "user-agent": "media-inspect-runner/1", accept: "*/*", "accept-encoding": "identity" };

/**
 * Drops a body we will not read. undici reports an unfinished body's destruction as an "aborted" error
 * event; nobody is listening any more, so it is swallowed instead of crashing the process.
 */
export function discard(body: Readable): void {
  body.on("error", () => {});
  body.destroy();
}

/** Range header value for [start, end] (inclusive; end undefined = to the end). */
export function rangeValue(start: number, end?: number): string {
  return `bytes=${start}-${end ?? ""}`;
}

function checkUrl(url: URL, allowlist: Allowlist): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RunnerError("SSRF_BLOCKED", `only http: and https: are fetched (got ${url.protocol})`);
  }
  const verdict = classifyUrlHost(url, allowlist).decision;
  if (!verdict.allowed) throw new RunnerError("SSRF_BLOCKED", "the target is a denied address", verdict.reason);
}

function singleHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(raw)) out[name] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}

/** Maps transport failures to runner errors; RunnerErrors (e.g. from the connect check) pass through. */
export function upstreamError(error: unknown, timedOut: boolean): RunnerError {
  if (isRunnerError(error)) return error;
  const cause = (error as { cause?: unknown })?.cause;
  if (isRunnerError(cause)) return cause;
  // AbortSignal.timeout() aborts with a DOMException named TimeoutError; undici passes it on as is.
  const named = (error as { name?: string })?.name;
  if (
    timedOut ||
    named === "TimeoutError" ||
    error instanceof undiciErrors.ConnectTimeoutError ||
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError
  ) {
    return new RunnerError("UPSTREAM_TIMEOUT", "the remote server did not answer in time", String(error));
  }
  return new RunnerError("BAD_GATEWAY", "the remote server could not be read", String(error));
}

/**
 * GETs url (optionally a byte range), following up to maxRedirects redirects. Resolves with a 2xx response
 * whose body the caller must consume or destroy; the body errors with UPSTREAM_TIMEOUT past the deadline.
 */
export async function openUpstream(
  url: URL,
  ctx: UpstreamContext,
  range?: { start: number; end?: number },
  /** If-Range validator (a strong ETag or an HTTP date): the range is served only if the file is still that one. */
  ifRange?: string,
): Promise<UpstreamResponse> {
  const deadline = AbortSignal.timeout(ctx.fetchTimeoutMs);
  const signal = ctx.signal ? AbortSignal.any([deadline, ctx.signal]) : deadline;
  let current = url;
  for (let hop = 0; ; hop++) {
    checkUrl(current, ctx.allowlist);
    let response: Dispatcher.ResponseData;
    try {
      // A request waiting for its origin's slot gives up with the same deadline.
      response = await (ctx.originLimiter ?? originLimiter).run(current, signal, () => request(current, {
        method: "GET",
        dispatcher: ctx.dispatcher,
        headers: range
          ? { ...outboundHeaders, range: rangeValue(range.start, range.end), ...(ifRange ? { "if-range": ifRange } : {}) }
          : outboundHeaders,
        signal,
        headersTimeout: ctx.fetchTimeoutMs,
        bodyTimeout: ctx.fetchTimeoutMs,
        // Never let undici pause its parser for backpressure: a paused HTTP/1 parser that then sees the origin's
        // FIN (HTTP/1.0, `Connection: close`) throws an uncatchable AssertionError that kills the runner
        // (an undici bug fixed only in undici 8, which needs Node 22). A body never buffers more than one
        // source may hold (the source's byte meter stops it there), so this bound is the cap we already keep.
        highWaterMark: MAX_SOURCE_BYTES,
      }));
    } catch (error) {
      throw upstreamError(error, deadline.aborted);
    }
    const headers = singleHeaders(response.headers);
    const status = response.statusCode;
    if (status >= 300 && status < 400 && headers.location !== undefined) {
      discard(response.body);
      if (hop >= ctx.maxRedirects) {
        throw new RunnerError("BAD_GATEWAY", `more than ${ctx.maxRedirects} redirects`);
      }
      try {
        current = new URL(headers.location, current);
      } catch {
        throw new RunnerError("BAD_GATEWAY", "the remote server sent an invalid redirect");
      }
      continue;
    }
    if (status >= 200 && status < 300) {
      // A timed-out body surfaces as an AbortError on the stream; name it for what it is.
      const body = response.body;
      const onAbort = () => body.destroy(upstreamError(new Error("body deadline"), deadline.aborted));
      signal.addEventListener("abort", onAbort, { once: true });
      body.once("close", () => signal.removeEventListener("abort", onAbort));
      return { status, headers, body, finalUrl: current, redirects: hop };
    }
    discard(response.body);
    if (status === 404 || status === 410) throw new RunnerError("RESOURCE_NOT_FOUND", `the remote server answered ${status}`);
    if (status === 416) throw new RunnerError("BAD_GATEWAY", "the remote server refused the byte range (416)");
    throw new RunnerError("BAD_GATEWAY", `the remote server answered ${status}`);
  }
}
