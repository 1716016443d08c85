import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer, type AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import { closable } from "./closable.ts";
import { serveCloakedHls } from "./cloaked-hls.ts";
import { servePlay } from "./refusal-routes.ts";

const types: Record<string, string> = {
  ".png": "image/png", ".jpg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif", ".avif": "image/avif",
  ".mp4": "video/mp4", ".webm": "video/webm", ".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".flac": "audio/flac",
  ".wav": "audio/wav", ".m4a": "audio/mp4", ".html": "text/html",
};

export interface OriginStats {
  requests: { path: string; range?: string; bytes: number; headers: Record<string, string | string[] | undefined>; connection?: number }[];
}

/**
 * A loopback origin for tests and benchmarks: serves files with real Range support and counts every byte,
 * plus fault routes (redirect chains, open redirects, status codes, slow, stalled body, reset, garbage, oversized, lying).
 */
export async function startLoopbackOrigin(dirs: string[], host = "127.0.0.1", extras: Record<string, () => unknown> = {}) {
  const stats: OriginStats = { requests: [] };
  const server: Server = createServer((req, res) => handle(req, res).catch(() => res.destroy()));
  const sockets = new Set<import("node:net").Socket>();
  // Each connection is numbered so tests can tell how many connections a client opened (keep-alive).
  const connectionIds = new WeakMap<import("node:net").Socket, number>();
  let connections = 0;
  server.on("connection", (s) => { connectionIds.set(s, ++connections); sockets.add(s); s.on("close", () => sockets.delete(s)); });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://origin");
    const entry = { path: url.pathname + url.search, range: req.headers.range, bytes: 0, headers: req.headers, connection: connectionIds.get(req.socket) };
    if (!url.pathname.startsWith("/__")) stats.requests.push(entry);
    const count = (chunk: Buffer | string) => { entry.bytes += Buffer.byteLength(chunk); };
    const parts = url.pathname.split("/").filter(Boolean);

    switch (parts[0]) {
      case "__stats":
        return json(res, stats);
      case "__extra":
        return json(res, extras[parts[1] ?? ""]?.() ?? null);
      case "__reset":
        stats.requests.length = 0;
        return json(res, { ok: true });
      case "media":
        return serveFile(req, res, parts.slice(1).join("/"), url.searchParams.has("norange"), url.searchParams.get("type"), count,
          url.searchParams.get("disposition"), framingHeaders(url.searchParams));
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
        await new Promise((r) => setTimeout(r, Number(url.searchParams.get("ms") ?? 15_000)));
        res.writeHead(200, { "content-type": "image/png" });
        return res.end("late");
      case "reset":
        return req.socket.destroy();
      case "stall": {
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
    async close() {
      await new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      });
    },
  };
}

/** Optional framing headers on /media (?xfo=DENY, ?csp=frame-ancestors 'none') for embed-profile tests. */
function framingHeaders(params: URLSearchParams): Record<string, string> {
  const headers: Record<string, string> = {};
  if (params.has("xfo")) headers["x-frame-options"] = params.get("xfo")!;
  if (params.has("csp")) headers["content-security-policy"] = params.get("csp")!;
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
  // ?hostile=TEXT pads the head with TEXT repeated instead (worst cases for the head reader, issue 15).
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
