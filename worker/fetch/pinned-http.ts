import { concatBytes } from "../../shared/bytes/concat-bytes.ts";
import { PinnedConnections, connectionKey, type Lane, type PinnedConnection } from "./pinned-connections.ts";
/**
 * A minimal HTTP/1.1 client over `cloudflare:sockets` that connects to an address the caller already
 * checked, never to a name: the runtime's `fetch()` would resolve the host again with the system resolver,
 * which is the DNS-rebinding window. TLS is started on that socket with the URL's
 * host as the expected certificate name, so https is verified exactly as `fetch()` would verify it.
 *
 * With a connection pool (one per inspection, see pinned-connections.ts) a connection is kept alive and the
 * next request to the same checked address, port and TLS name reuses it: each new connection costs a round
 * trip (two with TLS) on a distant origin. Without one, one request per connection (`Connection: close`).
 * Identity encoding, response head bounded and parsed in one linear pass; the body is streamed
 * (Content-Length, chunked, or until close).
 */

/** Largest response head (status line + headers) accepted. */
export const MAX_RESPONSE_HEAD_BYTES = 64 * 1024;
/** Longest chunk-size line in a chunked body (hex digits plus extensions). */
const MAX_CHUNK_LINE_BYTES = 4096;
/** Most header lines accepted in a response head. */
export const MAX_RESPONSE_HEADERS = 256;

export interface PinnedRequest {
  method: string;
  headers: Headers;
  body?: string;
  signal: AbortSignal;
}

const noBodyStatuses = new Set([204, 205, 304]);

/**
 * How a GET may ride behind the exchange in flight to the same checked address (pinned-connections.ts, Lane):
 * "prefetch", a read sent ahead in case it helps, gives up if that connection does not stay usable.
 */
export type PipelineMode = "prefetch";

export async function pinnedFetch(
  url: URL, address: string, port: number, request: PinnedRequest, pool?: PinnedConnections, pipeline?: PipelineMode,
): Promise<Response> {
  request.signal.throwIfAborted();
  const key = connectionKey(url, address, port);
  // A GET that may ride behind the exchange in flight to the same checked address (one connection, no wait).
  const lane = pipeline && pool && request.method === "GET" ? pool.follow(key) : undefined;
  if (lane && pool) {
    const response = await follow(lane, url, request, pool, key).catch(() => undefined);
    if (response) return response;
    request.signal.throwIfAborted();
    // A prefetch is not worth a connection of its own: the reader asks for what it still needs.
    throw new Error("the pipelined connection was closed before this request was answered");
  }
  const reused = pool?.take(key);
  if (reused) {
    try {
      return await exchange(reused, url, request, pool, key, pool?.lead(key));
    } catch (err) {
      // The origin may have closed the idle connection just as it was reused: an idempotent request is sent
      // once more on a fresh connection (to the same checked address); anything else is the caller's error.
      if (request.signal.aborted || (request.method !== "GET" && request.method !== "HEAD")) throw err;
    }
  }
  // The lane exists while the connection opens, so a request sent together with this one pipelines behind it.
  const leading = pool?.lead(key);
  let conn: PinnedConnection;
  try {
    conn = await open(url, address, port);
  } catch (err) {
    leading?.rejectWritten(err);
    if (leading && pool) pool.end(key, leading, { close() {} } as PinnedConnection, false, new Uint8Array(0));
    throw err;
  }
  return exchange(conn, url, request, pool, key, leading);
}

async function open(url: URL, address: string, port: number): Promise<PinnedConnection> {
  // Loaded on first use: modules that merely import the fetcher (the OpenAPI document, built in Node) need no workerd.
  const { connect } = await import("cloudflare:sockets");
  const https = url.protocol === "https:";
  const socket = connect(
    { hostname: address.includes(":") ? `[${address}]` : address, port },
    { secureTransport: https ? "starttls" : "off", allowHalfOpen: false },
  );
  // Failures surface through reads and writes; an unobserved `closed` rejection would be an uncaught error.
  socket.closed.catch(() => {});
  try {
    await socket.opened;
  } catch (err) {
    void socket.close().catch(() => {});
    throw err;
  }
  let stream = socket;
  if (https) {
    stream = socket.startTls({ expectedServerHostname: url.hostname });
    stream.closed.catch(() => {});
  }
  return { stream, reader: stream.readable.getReader(), close: () => void stream.close().catch(() => {}) };
}

/**
 * A request pipelined behind `lane`'s: written once the leader's request is, read once the leader's body ended.
 * Rejects (the caller sends it again on a connection of its own) if the connection did not stay usable.
 */
async function follow(lane: Lane, url: URL, request: PinnedRequest, pool: PinnedConnections, key: string): Promise<Response> {
  const handoff = new Promise<{ conn: PinnedConnection; leftover: Uint8Array } | undefined>((resolve) => {
    lane.follower = { resolve };
  });
  // The deadline ends the wait as it ends any exchange (the leader's own abort closes the connection).
  const aborted = new Promise<never>((_, reject) => {
    if (request.signal.aborted) reject(request.signal.reason);
    request.signal.addEventListener("abort", () => reject(request.signal.reason), { once: true });
  });
  aborted.catch(() => {});
  let given: { conn: PinnedConnection; leftover: Uint8Array } | undefined;
  try {
    const conn = await Promise.race([lane.written, aborted]);
    await send(conn, url, request, true);
    given = await Promise.race([handoff, aborted]);
  } catch (err) {
    // Whatever the leader hands over later has no reader left: closed, never pooled with a request in it.
    void handoff.then((late) => late?.conn.close());
    throw err;
  }
  if (!given) throw new Error("the pipelined connection was closed");
  // This exchange now leads the connection: its request is already written, so one more may pipeline behind it.
  const next = pool.lead(key);
  next.resolveWritten(given.conn);
  return receive(given.conn, url, request, pool, key, next, given.leftover);
}

async function send(conn: PinnedConnection, url: URL, request: PinnedRequest, keepAlive: boolean): Promise<void> {
  const writer = conn.stream.writable.getWriter();
  try {
    await writer.write(new TextEncoder().encode(serializeRequest(url, request, keepAlive)));
  } finally {
    writer.releaseLock();
  }
}

/** One request and its response head on `conn`; the body streams from it and gives the connection back when read whole. */
async function exchange(conn: PinnedConnection, url: URL, request: PinnedRequest, pool: PinnedConnections | undefined, key: string, lane: Lane | undefined): Promise<Response> {
  try {
    await send(conn, url, request, pool !== undefined);
  } catch (err) {
    lane?.rejectWritten(err);
    if (lane && pool) pool.end(key, lane, conn, false, new Uint8Array(0));
    else conn.close();
    throw err;
  }
  lane?.resolveWritten(conn);
  return receive(conn, url, request, pool, key, lane, new Uint8Array(0));
}

/** Reads the response to the request last written on `conn`, starting with `initial` (bytes already read past the previous response). */
async function receive(conn: PinnedConnection, _url: URL, request: PinnedRequest, pool: PinnedConnections | undefined, key: string,
  lane: Lane | undefined, initial: Uint8Array): Promise<Response> {
  const onAbort = () => conn.close();
  request.signal.addEventListener("abort", onAbort, { once: true });
  let released = false;
  const release = (reusable: boolean, leftover: Uint8Array) => {
    if (released) return;
    released = true;
    request.signal.removeEventListener("abort", onAbort);
    if (lane && pool) pool.end(key, lane, conn, reusable, leftover);
    else if (reusable && pool && leftover.byteLength === 0) pool.give(key, conn);
    else conn.close();
  };
  try {
    const { head, rest } = await readHead(conn.reader, initial);
    const parsed = parseResponseHead(head);
    // Kept only where both sides agree and the body's end is known without the connection closing.
    const keep = pool !== undefined && parsed.version === "1.1" && !hasToken(parsed.headers.get("connection"), "close");
    const bodyless = request.method === "HEAD" || noBodyStatuses.has(parsed.status) || parsed.status < 200;
    if (bodyless) {
      release(keep, rest);
      return new Response(null, { status: parsed.status, statusText: parsed.statusText, headers: parsed.headers });
    }
    const body = bodyStream(conn.reader, rest, parsed.headers, (complete, leftover) => release(keep && complete, leftover));
    return new Response(body, { status: parsed.status, statusText: parsed.statusText, headers: parsed.headers });
  } catch (err) {
    release(false, new Uint8Array(0));
    throw err;
  }
}

function serializeRequest(url: URL, request: PinnedRequest, keepAlive: boolean): string {
  const lines = [`${request.method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`,
    `connection: ${keepAlive ? "keep-alive" : "close"}`, "accept-encoding: identity"];
  request.headers.forEach((value, name) => {
    if (name === "host" || name === "connection" || name === "accept-encoding" || name === "content-length") return;
    lines.push(`${name}: ${value}`); // Headers has already refused CR/LF in names and values.
  });
  if (request.body !== undefined) lines.push(`content-length: ${new TextEncoder().encode(request.body).byteLength}`);
  return `${lines.join("\r\n")}\r\n\r\n${request.body ?? ""}`;
}

/** Whether a comma-separated header value lists `token` (case-insensitive), by splitting: linear. */
function hasToken(value: string | null, token: string): boolean {
  return value !== null && value.split(",").some((part) => part.trim().toLowerCase() === token);
}

type Reader = ReadableStreamDefaultReader<Uint8Array>;

/** Reads up to the blank line ending the head; what follows it belongs to the body. */
async function readHead(reader: Reader, initial: Uint8Array): Promise<{ head: string; rest: Uint8Array }> {
  let buffer: Uint8Array = new Uint8Array(0);
  let scanFrom = 0;
  let pending: Uint8Array | undefined = initial.byteLength > 0 ? initial : undefined;
  for (;;) {
    let value = pending;
    pending = undefined;
    if (!value) {
      const next = await reader.read();
      if (next.done) throw new Error("connection closed before the response head ended");
      value = next.value;
    }
    buffer = concat(buffer, value);
    // Resume the search a few bytes back so a CRLFCRLF split across reads is found; each byte is scanned once.
    const end = indexOfHeadEnd(buffer, Math.max(0, scanFrom - 3));
    if (end >= 0) return { head: new TextDecoder("latin1").decode(buffer.subarray(0, end)), rest: buffer.subarray(end + 4) };
    if (buffer.byteLength > MAX_RESPONSE_HEAD_BYTES) throw new Error("response head too large");
    scanFrom = buffer.byteLength;
  }
}

function indexOfHeadEnd(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 3 < bytes.byteLength; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return i;
  }
  return -1;
}

/** Parses a status line and header lines with string splitting only (linear, no regular expressions). */
export function parseResponseHead(head: string): { status: number; statusText: string; headers: Headers; version: "1.0" | "1.1" } {
  const lines = head.split("\r\n");
  const statusLine = lines[0] ?? "";
  if (!statusLine.startsWith("HTTP/1.")) throw new Error("not an HTTP/1.x response");
  const firstSpace = statusLine.indexOf(" ");
  const code = statusLine.slice(firstSpace + 1, firstSpace + 4);
  const status = Number(code);
  if (firstSpace < 0 || code.length !== 3 || !Number.isInteger(status) || status < 100 || status > 599) {
    throw new Error("invalid status line");
  }
  const headers = new Headers();
  if (lines.length - 1 > MAX_RESPONSE_HEADERS) throw new Error("too many response headers");
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw new Error("invalid header line");
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return { status, statusText: statusLine.slice(firstSpace + 5), headers, version: statusLine.startsWith("HTTP/1.1 ") ? "1.1" : "1.0" };
}

/**
 * The body as a stream. `done(complete, leftover)`: once, when the body ended (complete: its declared end was
 * reached, so the connection may carry another exchange; `leftover`: bytes read past it, the start of a pipelined
 * response) or was cancelled or broke (false).
 */
function bodyStream(reader: Reader, rest: Uint8Array, headers: Headers, done: (complete: boolean, leftover: Uint8Array) => void): ReadableStream<Uint8Array> {
  const chunked = (headers.get("transfer-encoding") ?? "").toLowerCase().includes("chunked");
  const declared = headers.get("content-length");
  let remaining = !chunked && declared !== null && /^\d{1,15}$/.test(declared.trim()) ? Number(declared.trim()) : Infinity;
  const decoder = chunked ? new ChunkedDecoder() : null;
  let pending: Uint8Array | null = rest.byteLength > 0 ? rest : null;
  let finished = false;
  /** Bytes past the body's end: a pipelined response's start, or a misbehaving origin's (the idle pool refuses those). */
  let leftover: Uint8Array = new Uint8Array(0);
  const end = (complete: boolean) => {
    if (finished) return false;
    finished = true;
    done(complete, complete ? leftover : new Uint8Array(0));
    return true;
  };
  // Declared ends are closed as soon as reached, not on the next pull: a reader that stops at the last byte
  // it asked for still gives the connection back.
  const ended = () => remaining === 0 || decoder?.ended === true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          if (ended()) {
            if (end(true)) controller.close();
            return;
          }
          let input = pending;
          pending = null;
          if (!input) {
            const { done: eof, value } = await reader.read();
            if (eof) {
              if (decoder || remaining !== Infinity) throw new Error("connection closed before the body ended");
              if (end(false)) controller.close();
              return;
            }
            input = value;
          }
          const out = decoder ? decoder.push(input) : input.subarray(0, Math.min(input.byteLength, remaining));
          const past = decoder ? decoder.unconsumed : input.byteLength - out.byteLength;
          if (past > 0) leftover = concat(leftover, input.subarray(input.byteLength - past));
          if (!decoder) remaining -= out.byteLength;
          if (out.byteLength > 0) {
            controller.enqueue(out);
            if (ended() && end(true)) controller.close();
            return;
          }
        }
      } catch (err) {
        end(false);
        throw err;
      }
    },
    cancel() {
      if (finished) return;
      finished = true;
      reader.cancel().catch(() => {});
      done(false, new Uint8Array(0));
    },
  });
}

/** Incremental `Transfer-Encoding: chunked` decoder: a byte-at-a-time state machine, linear in its input. */
export class ChunkedDecoder {
  ended = false;
  /** Bytes of the last input left after the body's end (0 while the body goes on). */
  unconsumed = 0;
  private state: "size" | "data" | "data-crlf" | "trailer" = "size";
  private line = "";
  private left = 0;

  push(input: Uint8Array): Uint8Array {
    const parts: Uint8Array[] = [];
    let i = 0;
    while (i < input.byteLength && !this.ended) {
      if (this.state === "data") {
        const take = Math.min(this.left, input.byteLength - i);
        parts.push(input.subarray(i, i + take));
        i += take;
        this.left -= take;
        if (this.left === 0) this.state = "data-crlf";
        continue;
      }
      const byte = input[i++]!;
      if (byte !== 10) {
        if (byte !== 13) this.line += String.fromCharCode(byte);
        if (this.line.length > MAX_CHUNK_LINE_BYTES) throw new Error("chunk line too long");
        continue;
      }
      const line = this.line;
      this.line = "";
      if (this.state === "data-crlf") {
        if (line !== "") throw new Error("missing CRLF after chunk data");
        this.state = "size";
      } else if (this.state === "size") {
        const semicolon = line.indexOf(";");
        const hex = (semicolon >= 0 ? line.slice(0, semicolon) : line).trim();
        if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) throw new Error("invalid chunk size");
        this.left = parseInt(hex, 16);
        this.state = this.left === 0 ? "trailer" : "data";
      } else if (line === "") {
        this.ended = true; // blank line after the trailers: end of body
      }
    }
    this.unconsumed = input.byteLength - i;
    return concatBytes(parts);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.byteLength === 0) return b;
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}
