import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer, type AddressInfo } from "node:net";
import { basename, extname, join, normalize } from "node:path";
import { closable } from "./closable.ts";
import { serveCloakedHls } from "./cloaked-hls.ts";
import { servePlay } from "./refusal-routes.ts";

const types: Record<string, string> = {
  ".png": "image/png", ".jpg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif", ".avif": "image/avif",
  ".mp4": "video/mp4", ".webm": "video/webm", ".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".flac": "audio/flac",
  ".wav": "audio/wav", ".m4a": "audio/mp4", ".html": "text/html",
};

/**
 * Content types of the /files routes: narrower than /media's on purpose (the runner tests and the bench were
 * written against it). ffmpeg scores a demuxer up when the origin's MIME type names it, so giving .webp, .gif
 * or .m4a their real types here would change what the runner probes; anything else is application/octet-stream.
 */
const fileTypes: Record<string, string> = {
  ".mp4": "video/mp4", ".webm": "video/webm", ".mp3": "audio/mpeg", ".flac": "audio/flac", ".ogg": "audio/ogg",
  ".wav": "audio/wav", ".png": "image/png", ".jpg": "image/jpeg", ".tif": "image/tiff", ".tiff": "image/tiff",
};

export interface OriginRequest {
  /** Path and query as received. */
  path: string;
  range?: string;
  /** Body bytes written for this request. */
  bytes: number;
  headers: IncomingHttpHeaders;
  /** The connection's number (1, 2, ...): how many connections a client opened (keep-alive). */
  connection?: number;
  /** Date.now() when the request arrived, and when its response was sent whole (or the exchange closed). */
  receivedAt?: number;
  answeredAt?: number;
}

/** What the origin saw; control routes (/__stats, /__reset, /__extra) are not counted. Served as JSON at /__stats. */
export interface OriginStats {
  /** Every request, in arrival order. */
  requests: OriginRequest[];
  /** Body bytes written, all requests. */
  bytes: number;
  /** Requests not yet closed, and the most at once since the start or the last reset. */
  inFlight: number;
  maxInFlight: number;
  /** Date.now() of the last request start, body write or close: for waiting until background work is quiet. */
  lastActivity: number;
}

/** One tag's share (see `tagStats`). */
export interface TagStats {
  requests: number;
  bytes: number;
  /** Range header of the tag's first request ("none" without one). */
  firstRange: string | undefined;
  /** Every request's Range header and user agent, in arrival order. */
  log: string[];
}

export interface LoopbackOriginOptions {
  /** ETag and Last-Modified (from the file's stat, as nginx makes them) on /files answers; default true. */
  validators?: boolean;
}

export type LoopbackOrigin = Awaited<ReturnType<typeof startLoopbackOrigin>>;

/**
 * The loopback origin for tests and benchmarks: serves files with real Range support and counts every
 * request and byte, plus fault routes. Files are looked up in `dirs`, first match wins.
 *
 *   /media/<path>[?norange][&type=][&disposition=][&xfo=][&csp=][&link=]   file (sub-paths allowed), Range-capable
 *   /files/<name>                 file, Range-capable (206 / 416), ETag and Last-Modified unless options.validators is false
 *   /norange/<name>               file, Range ignored (200), no Content-Length (chunked)
 *   /slow/<ms>/<name>             waits, then answers like /files
 *   /stall/<name>                 200 with the full Content-Length and the first 1 kB, then silence
 *   /redirect/<n>/<rest...>       302 chain of n hops ending at /<rest...>
 *   /redirect/<n>?to=<url>        302 chain of n hops ending at `to`
 *   /redirect-to?url=[&ms=], /status/<code>, /slow?ms=, /stall?ms=, /reset, /huge, /lying.png, /page.html,
 *   /html-page, /probe-only/<file>, /corrupt/<file>, /play/..., /cloaked-hls/...   (see each case below)
 *   /__stats, /__reset, /__extra/<name>  control routes, for tests that reach the origin only over HTTP
 *
 * Per-tag accounting (the bench): each run adds `?t=<tag>` to its URLs and reads `tagStats(tag)`.
 */
export async function startLoopbackOrigin(dirs: string[], host = "127.0.0.1", extras: Record<string, () => unknown> = {},
  options: LoopbackOriginOptions = {}) {
  const validators = options.validators ?? true;
  const stats: OriginStats = { requests: [], bytes: 0, inFlight: 0, maxInFlight: 0, lastActivity: Date.now() };
  // Zeroes the counters; requests still open stay counted in inFlight.
  const reset = () => {
    stats.requests.length = 0;
    stats.bytes = 0;
    stats.maxInFlight = stats.inFlight;
  };
  const server: Server = createServer((req, res) => handle(req, res).catch(() => res.destroy()));
  const sockets = new Set<import("node:net").Socket>();
  // Each connection is numbered so tests can tell how many connections a client opened (keep-alive).
  const connectionIds = new WeakMap<import("node:net").Socket, number>();
  let connections = 0;
  server.on("connection", (s) => { connectionIds.set(s, ++connections); sockets.add(s); s.on("close", () => sockets.delete(s)); });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://origin");
    const entry: OriginRequest = { path: url.pathname + url.search, range: req.headers.range, bytes: 0, headers: req.headers, connection: connectionIds.get(req.socket), receivedAt: Date.now() };
    const counted = !url.pathname.startsWith("/__");
    if (counted) {
      res.once("finish", () => {
        entry.answeredAt ??= Date.now();
      });
      stats.requests.push(entry);
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      stats.lastActivity = Date.now();
      res.once("close", () => {
        entry.answeredAt ??= Date.now();
        stats.inFlight--;
        stats.lastActivity = Date.now();
      });
    }
    const count = (chunk: Buffer | string) => {
      const n = Buffer.byteLength(chunk);
      entry.bytes += n;
      if (counted) {
        stats.bytes += n;
        stats.lastActivity = Date.now();
      }
    };
    const parts = url.pathname.split("/").filter(Boolean);

    switch (parts[0]) {
      case "__stats":
        return json(res, stats);
      case "__extra":
        // An extra may be a promise (the Worker set-up's fixture readings); its failure is answered, not hidden.
        try {
          return json(res, (await extras[parts[1] ?? ""]?.()) ?? null);
        } catch (error) {
          res.writeHead(500, { "content-type": "text/plain" });
          return res.end(error instanceof Error ? error.stack ?? error.message : String(error));
        }
      case "__reset":
        reset();
        return json(res, { ok: true });
      case "media":
        return serveFile(req, res, parts.slice(1).join("/"), url.searchParams.has("norange"), url.searchParams.get("type"), count,
          url.searchParams.get("disposition"), framingHeaders(url.searchParams));
      case "files":
        return serveNamedFile(req, res, parts[1], true, count);
      case "norange":
        return serveNamedFile(req, res, parts[1], false, count);
      case "probe-only": {
        // The first bytes are served (the probe); any later request fails with 503 (an origin that breaks
        // after a good probe).
        if (!req.headers.range?.startsWith("bytes=0-")) {
          res.writeHead(503, { "content-type": "text/plain" });
          return res.end("unavailable");
        }
        return serveFile(req, res, parts.slice(1).join("/"), false, null, count);
      }
      case "corrupt": {
        // /corrupt/<file>?keep=N: the first N bytes of a real file (e.g. a PNG signature and IHDR), then
        // deterministic garbage: the header reads fine, decoding the pixels fails.
        const path = findFile(parts.slice(1).join("/"));
        if (!path) {
          res.writeHead(404);
          return res.end();
        }
        const keep = readFileSync(path).subarray(0, Number(url.searchParams.get("keep") ?? 33));
        const body = Buffer.concat([keep, Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 73 + 11) & 0xff))]);
        res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream", "content-length": body.length });
        count(body);
        return res.end(body);
      }
      case "play":
        return servePlay(req, res, parts.slice(1), url.search, count,
          (extra, file) => serveFile(req, res, file, false, null, count, null, extra));
      case "cloaked-hls":
        return serveCloakedHls(req, res, parts.slice(1), url.search, count);
      case "redirect": {
        // /redirect/N?to=URL: N more hops, then URL.
        if (parts.length <= 2 && url.searchParams.has("to")) {
          const hops = Number(parts[1] ?? 1);
          const to = url.searchParams.get("to") ?? "/";
          res.writeHead(302, { location: hops > 1 ? `/redirect/${hops - 1}?to=${encodeURIComponent(to)}` : to });
          return res.end();
        }
        // /redirect/N/rest...: N more hops, then /rest...
        const n = Number(parts[1]);
        const rest = "/" + parts.slice(2).join("/") + url.search;
        res.writeHead(302, { location: n > 1 ? `/redirect/${n - 1}${rest}` : rest });
        return res.end();
      }
      case "redirect-to":
        // Optional `ms`: answer the redirect late (a chain of slow hops must share one deadline).
        if (url.searchParams.has("ms")) await new Promise((r) => setTimeout(r, Number(url.searchParams.get("ms"))));
        res.writeHead(302, { location: url.searchParams.get("url") ?? "/" });
        return res.end();
      case "status":
        res.writeHead(Number(parts[1]), { "content-type": "text/plain" });
        return res.end("status");
      case "slow":
        // /slow/<ms>/<name>: waits, then answers like /files.
        if (parts.length >= 3) {
          await new Promise((r) => setTimeout(r, Number(parts[1])));
          return serveNamedFile(req, res, parts[2], true, count);
        }
        await new Promise((r) => setTimeout(r, Number(url.searchParams.get("ms") ?? 15_000)));
        res.writeHead(200, { "content-type": "image/png" });
        return res.end("late");
      case "reset":
        return req.socket.destroy();
      case "stall": {
        // /stall/<name>: a 200 announcing the whole file, its first 1 kB, then nothing; never ends (the
        // client's deadline must).
        if (parts.length >= 2) {
          const path = findNamedFile(parts[1]);
          if (!path) {
            res.writeHead(404);
            return res.end();
          }
          res.writeHead(200, { "content-length": String((await stat(path)).size), "content-type": "application/octet-stream" });
          createReadStream(path, { start: 0, end: 1023 }).on("data", (chunk) => {
            count(chunk);
            res.write(chunk);
          });
          return;
        }
        // Answers at once with a Range-capable 206 and the first 1 KiB, then sends nothing more for `ms`:
        // the deadline must cover reading the body, not only waiting for headers.
        const size = 256 * 1024;
        res.writeHead(206, { "content-type": "video/mp4", "content-range": `bytes 0-${size - 1}/${size}`, "content-length": size });
        const first = Buffer.alloc(1024);
        count(first);
        res.write(first);
        await new Promise((r) => setTimeout(r, Number(url.searchParams.get("ms") ?? 15_000)));
        return res.destroy();
      }
      case "huge": {
        // Declares 60 MB (Range or not) and would stream it.
        const total = 60 * 1024 * 1024;
        if (req.headers.range) res.writeHead(206, { "content-type": "video/mp4", "content-range": `bytes 0-65535/${total}`, "content-length": 65536 });
        else res.writeHead(200, { "content-type": "video/mp4", "content-length": total });
        return streamZeros(res, req.headers.range ? 65536 : total, count);
      }
      case "lying.png": {
        // Claims a 2000-byte file to Range requests, but a full GET streams 60 MB (chunked, no length).
        // ?claim=N claims an N-byte file instead and answers the requested range of it (N above the probe head
        // makes the Worker download the "whole" file, which then never ends).
        const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000064000000640806000000", "hex");
        const claim = Number(url.searchParams.get("claim") ?? 0);
        const range = req.headers.range?.match(/^bytes=(\d+)-(\d+)$/);
        if (claim > 0 && range) {
          const start = Number(range[1]);
          const end = Math.min(Number(range[2]), claim - 1);
          const body = Buffer.alloc(end - start + 1);
          if (start === 0) png.copy(body);
          res.writeHead(206, { "content-type": "image/png", "content-range": `bytes ${start}-${end}/${claim}`, "content-length": body.length });
          count(body);
          return res.end(body);
        }
        if (req.headers.range) {
          res.writeHead(206, { "content-type": "image/png", "content-range": "bytes 0-1999/2000", "content-length": 2000 });
          const body = Buffer.concat([png, Buffer.alloc(2000 - png.length)]);
          count(body);
          return res.end(body);
        }
        res.writeHead(200, { "content-type": "image/png" });
        count(png);
        res.write(png);
        return streamZeros(res, 60 * 1024 * 1024, count);
      }
      case "page.html": {
        const body = `<!doctype html><html><head><title>A &amp; B page</title></head><body>hello</body></html>`;
        res.writeHead(200, { "content-type": "text/html; charset=utf-8", "x-frame-options": "DENY", "set-cookie": "session=secret" });
        count(body);
        return res.end(body);
      }
      case "html-page":
        // A generated page for oEmbed discovery tests (see htmlPage below), with Range support unless ?norange.
        return serveBuffer(req, res, htmlPage(url.searchParams), "text/html; charset=utf-8", url.searchParams.has("norange"), count,
          trickleOf(url.searchParams));
      default:
        res.writeHead(404, { "content-type": "text/plain" });
        return res.end("not found");
    }
  }

  function findFile(name: string): string | undefined {
    return dirs.map((d) => join(d, normalize(name).replace(/^(\.\.[/\\])+/, ""))).find((p) => existsSync(p) && statSync(p).isFile());
  }

  /** A file named by one path segment (URL-decoded, directories stripped), in the first of `dirs` holding it. */
  function findNamedFile(segment: string | undefined): string | undefined {
    const name = basename(decodeURIComponent(segment ?? ""));
    return name ? dirs.map((d) => join(d, name)).find((p) => existsSync(p) && statSync(p).isFile()) : undefined;
  }

  /** /files (ranges) and /norange: 206 / 416 / 200 with Content-Length, or a plain chunked 200 without Range. */
  async function serveNamedFile(req: IncomingMessage, res: ServerResponse, segment: string | undefined, ranges: boolean, count: (c: Buffer) => void) {
    const file = findNamedFile(segment);
    if (!file) return void res.writeHead(404).end();
    const info = await stat(file);
    const size = info.size;
    // As nginx makes them: size and modification time.
    const fileValidators: Record<string, string> = validators
      ? { etag: `"${info.mtimeMs.toString(16).replace(".", "")}-${size.toString(16)}"`, "last-modified": info.mtime.toUTCString() }
      : {};
    const type = fileTypes[extname(file)] ?? "application/octet-stream";
    const pipe = (start?: number, end?: number) => {
      const stream = createReadStream(file, { start, end });
      stream.on("data", (c) => count(c as Buffer));
      stream.pipe(res);
      res.on("close", () => stream.destroy());
    };
    const match = ranges ? /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "") : null;
    if (!match) {
      res.writeHead(200, ranges ? { "content-length": String(size), "accept-ranges": "bytes", "content-type": type, ...fileValidators } : { "content-type": type });
      if (req.method === "HEAD") return void res.end();
      return pipe();
    }
    const start = Math.max(0, match[1] === "" ? size - Number(match[2]) : Number(match[1]));
    const end = match[1] === "" || match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (start >= size || end < start) return void res.writeHead(416, { "content-range": `bytes */${size}` }).end();
    res.writeHead(206, {
      "content-length": String(end - start + 1),
      "content-range": `bytes ${start}-${end}/${size}`,
      "accept-ranges": "bytes",
      "content-type": type,
      ...fileValidators,
    });
    if (req.method === "HEAD") return void res.end();
    pipe(start, end);
  }

  function serveFile(req: IncomingMessage, res: ServerResponse, name: string, noRange: boolean, typeOverride: string | null, count: (c: Buffer) => void,
    disposition: string | null = null, extraHeaders: Record<string, string> = {}) {
    const path = findFile(name);
    if (!path) {
      res.writeHead(404);
      return res.end();
    }
    const size = statSync(path).size;
    const type = typeOverride ?? types[extname(path)] ?? "application/octet-stream";
    // Optional Content-Disposition (from ?disposition=) for filename tests.
    if (disposition) res.setHeader("content-disposition", disposition);
    for (const [name, value] of Object.entries(extraHeaders)) res.setHeader(name, value);
    const match = !noRange && req.headers.range?.match(/^bytes=(\d*)-(\d*)$/);
    let start = 0;
    let end = size - 1;
    if (match) {
      if (match[1] === "") start = Math.max(0, size - Number(match[2]));
      else {
        start = Number(match[1]);
        if (match[2] !== "") end = Math.min(Number(match[2]), size - 1);
      }
      if (start >= size) {
        res.writeHead(416, { "content-range": `bytes */${size}` });
        return res.end();
      }
      res.writeHead(206, { "content-type": type, "accept-ranges": "bytes", "content-range": `bytes ${start}-${end}/${size}`, "content-length": end - start + 1 });
    } else {
      res.writeHead(200, { "content-type": type, "content-length": size, ...(noRange ? {} : { "accept-ranges": "bytes" }) });
    }
    const stream = createReadStream(path, { start, end });
    stream.on("data", (c) => count(c as Buffer));
    stream.pipe(res);
    res.on("close", () => stream.destroy());
  }

  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    stats,
    /** Empties `stats.requests` and zeroes the byte count and maxInFlight (what /__reset does). */
    reset,
    /** The requests whose query has `param`=`tag` (default `t`), summed: a copy. */
    tagStats(tag: string, param = "t"): TagStats {
      const mine = stats.requests.filter((r) => new URL(r.path, "http://origin").searchParams.get(param) === tag);
      return {
        requests: mine.length,
        bytes: mine.reduce((sum, r) => sum + r.bytes, 0),
        firstRange: mine.length > 0 ? (mine[0]!.range ?? "none") : undefined,
        log: mine.map((r) => `${r.range ?? "no range"} (${r.headers["user-agent"] ?? "?"})`),
      };
    },
    async close() {
      await new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      });
    },
  };
}

/** Optional headers on /media (?xfo=DENY, ?csp=frame-ancestors 'none' for embed-profile tests; ?link= a Link header). */
function framingHeaders(params: URLSearchParams): Record<string, string> {
  const headers: Record<string, string> = {};
  if (params.has("xfo")) headers["x-frame-options"] = params.get("xfo")!;
  if (params.has("csp")) headers["content-security-policy"] = params.get("csp")!;
  if (params.has("link")) headers.link = params.get("link")!;
  return headers;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * /html-page: `?title=` (default "Generated page"), `?oembed=` a json+oembed discovery href, `?pad=` bytes of
 * head padding placed BEFORE the title and link (so they are only found by reading that far), `?body=` bytes
 * of body after </head> (which a reader must not need).
 */
function htmlPage(params: URLSearchParams): Buffer {
  const pad = Number(params.get("pad") ?? 0);
  const bodyBytes = Number(params.get("body") ?? 0);
  const oembed = params.get("oembed");
  // ?hostile=TEXT pads the head with TEXT repeated instead (worst cases for the head reader).
  const hostile = params.get("hostile");
  const head = [
    "<!doctype html><html><head><meta charset=\"utf-8\">",
    pad > 0 && hostile ? hostile.repeat(Math.ceil(pad / hostile.length)).slice(0, pad) : "",
    pad > 0 && !hostile ? `<meta name="padding" content="${"p".repeat(pad)}">` : "",
    `<title>${escapeHtml(params.get("title") ?? "Generated page")}</title>`,
    oembed ? `<link rel="alternate" type="application/json+oembed" href="${escapeHtml(oembed)}" title="oEmbed">` : "",
    "</head>",
  ].join("");
  const body = `<body>${"b".repeat(bodyBytes)}</body></html>`;
  return Buffer.from(head + body);
}

/**
 * `?trickle=MS` on /html-page: a whole-body (non-Range) answer sends the head at once, then one 16 KiB piece of
 * body every MS ms, so the bytes counted at the origin show when the reader hung up (socket buffers would
 * otherwise swallow megabytes that were never read).
 */
function trickleOf(params: URLSearchParams): { after: number; ms: number } | undefined {
  if (!params.has("trickle")) return undefined;
  const headEnd = htmlPage(params).indexOf("</head>") + "</head>".length;
  return { after: headEnd, ms: Number(params.get("trickle")) };
}

/** Serves an in-memory body with the same Range semantics as serveFile. */
function serveBuffer(req: IncomingMessage, res: ServerResponse, body: Buffer, type: string, noRange: boolean, count: (c: Buffer) => void,
  trickle?: { after: number; ms: number }) {
  const match = !noRange && req.headers.range?.match(/^bytes=(\d+)-(\d*)$/);
  if (match) {
    const start = Number(match[1]);
    const end = Math.min(match[2] === "" ? body.length - 1 : Number(match[2]), body.length - 1);
    if (start >= body.length) {
      res.writeHead(416, { "content-range": `bytes */${body.length}` });
      return res.end();
    }
    const slice = body.subarray(start, end + 1);
    res.writeHead(206, { "content-type": type, "accept-ranges": "bytes", "content-range": `bytes ${start}-${end}/${body.length}`, "content-length": slice.length });
    count(slice);
    return res.end(slice);
  }
  res.writeHead(200, { "content-type": type, "content-length": body.length });
  // Written in 16 KiB pieces with back-pressure, so a reader that hangs up stops the writing.
  let offset = 0;
  const pump = () => {
    while (offset < body.length) {
      if (trickle && offset >= trickle.after) {
        const piece = body.subarray(offset, offset + 16 * 1024);
        offset += piece.length;
        count(piece);
        res.write(piece);
        if (offset >= body.length) return void res.end();
        return void setTimeout(pump, trickle.ms);
      }
      const piece = body.subarray(offset, Math.min(offset + 16 * 1024, trickle && offset < trickle.after ? trickle.after : body.length));
      offset += piece.length;
      count(piece);
      if (!res.write(piece)) return void res.once("drain", pump);
    }
    res.end();
  };
  res.on("close", () => { offset = body.length; });
  pump();
}

function streamZeros(res: ServerResponse, total: number, count: (c: Buffer) => void) {
  const chunk = Buffer.alloc(64 * 1024);
  let sent = 0;
  const pump = () => {
    while (sent < total) {
      const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      count(piece);
      if (!res.write(piece)) return void res.once("drain", pump);
    }
    res.end();
  };
  res.on("close", () => { sent = total; });
  pump();
}

function json(res: ServerResponse, body: unknown) {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** A server that answers raw non-HTTP bytes. */
export async function startGarbageServer(host = "127.0.0.1") {
  const server: TcpServer = createTcpServer((s) => s.end("THIS IS NOT HTTP\r\n\r\n\x00\x01\x02"));
  const close = closable(server);
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host}:${port}`, port, close };
}

/** Counts TCP connections: proof that a refused target was never contacted. */
export async function startConnectionTrap(host: string) {
  let connections = 0;
  const server: TcpServer = createTcpServer((s) => { connections += 1; s.destroy(); });
  const close = closable(server);
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  return { port, connections: () => connections, close };
}
