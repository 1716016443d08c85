/**
 * A loopback origin for the runner tests and the bench: serves files from one folder with Range support and
 * injects faults. Counts requests, bytes sent and simultaneous requests, and keeps request headers.
 *
 *   /files/<name>                 file, Range-capable (206 / 416), with ETag and Last-Modified from its stat
 *   /norange/<name>               file, Range ignored (200), no Content-Length (chunked)
 *   /redirect/<n>?to=<url>        302 chain of n hops ending at `to`
 *   /status/<code>                that status, empty body
 *   /slow/<ms>/<name>             waits before answering like /files
 *   /stall/<name>                 headers and the first 1 kB, then silence
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, join } from "node:path";

export interface OriginStats {
  requests: number;
  bytes: number;
  inFlight: number;
  maxInFlight: number;
  headers: IncomingHttpHeaders[];
  paths: string[];
}

export interface Origin {
  url: string;
  port: number;
  stats: OriginStats;
  reset(): void;
  close(): Promise<void>;
}

function freshStats(): OriginStats {
  return { requests: 0, bytes: 0, inFlight: 0, maxInFlight: 0, headers: [], paths: [] };
}

export async function startOrigin(root: string, host = "127.0.0.1"): Promise<Origin> {
  let stats = freshStats();
  const server = createServer((req, res) => {
    stats.requests++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    stats.headers.push(req.headers);
    stats.paths.push(req.url ?? "");
    res.once("close", () => stats.inFlight--);
    const write = res.write.bind(res);
    res.write = ((chunk: Buffer | string, ...rest: never[]) => {
      stats.bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
      return write(chunk, ...rest);
    }) as typeof res.write;
    handle(root, req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    get stats() {
      return stats;
    },
    reset: () => {
      stats = freshStats();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://origin.test");
  const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const [kind] = parts;
  if (kind === "files") return serveFile(join(root, basename(parts[1] ?? "")), req, res, true);
  if (kind === "norange") return serveFile(join(root, basename(parts[1] ?? "")), req, res, false);
  if (kind === "redirect") {
    const hops = Number(parts[1] ?? 1);
    const to = url.searchParams.get("to") ?? "/";
    const next = hops > 1 ? `/redirect/${hops - 1}?to=${encodeURIComponent(to)}` : to;
    return void res.writeHead(302, { location: next }).end();
  }
  if (kind === "status") return void res.writeHead(Number(parts[1] ?? 500)).end();
  if (kind === "slow") {
    await new Promise((resolve) => setTimeout(resolve, Number(parts[1] ?? 1000)));
    return serveFile(join(root, basename(parts[2] ?? "")), req, res, true);
  }
  if (kind === "stall") {
    const file = join(root, basename(parts[1] ?? ""));
    const size = (await stat(file)).size;
    res.writeHead(200, { "content-length": String(size), "content-type": "application/octet-stream" });
    createReadStream(file, { start: 0, end: 1023 }).on("data", (chunk) => res.write(chunk));
    return; // never ends; the client's deadline must
  }
  res.writeHead(404).end();
}

const contentTypes: Record<string, string> = {
  mp4: "video/mp4", webm: "video/webm", mp3: "audio/mpeg", flac: "audio/flac", ogg: "audio/ogg",
  wav: "audio/wav", png: "image/png", jpg: "image/jpeg",
};

async function serveFile(file: string, req: IncomingMessage, res: ServerResponse, ranges: boolean): Promise<void> {
  let size: number;
  let validators: Record<string, string>;
  try {
    const info = await stat(file);
    size = info.size;
    // As nginx makes them: size and modification time.
    validators = { etag: `"${info.mtimeMs.toString(16).replace(".", "")}-${size.toString(16)}"`, "last-modified": info.mtime.toUTCString() };
  } catch {
    return void res.writeHead(404).end();
  }
  const type = contentTypes[file.split(".").pop() ?? ""] ?? "application/octet-stream";
  const match = ranges ? /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "") : null;
  if (!match) {
    res.writeHead(200, ranges ? { "content-length": String(size), "accept-ranges": "bytes", "content-type": type, ...validators } : { "content-type": type });
    if (req.method === "HEAD") return void res.end();
    return void createReadStream(file).pipe(res);
  }
  let start = match[1] === "" ? size - Number(match[2]) : Number(match[1]);
  let end = match[1] === "" || match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  start = Math.max(0, start);
  if (start >= size || end < start) return void res.writeHead(416, { "content-range": `bytes */${size}` }).end();
  res.writeHead(206, {
    "content-length": String(end - start + 1),
    "content-range": `bytes ${start}-${end}/${size}`,
    "accept-ranges": "bytes",
    "content-type": type,
    ...validators,
  });
  if (req.method === "HEAD") return void res.end();
  createReadStream(file, { start, end }).pipe(res);
}
