/**
 * The bench's loopback origin: serves the generated files with Range support (like a static host) and
 * accounts requests and body bytes per tag, the `t` query parameter. Each tool run gets its own tag, so
 * bytes pulled in the background after an answer (runner work a `fast` call queued) are told apart from
 * the answer's own, and rounds never share a cached URL.
 *   /files/<name>?t=<tag>     file, Range-capable (206 / 416)
 *   /norange/<name>?t=<tag>   file, Range ignored (200)
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, extname, join } from "node:path";

export interface TagStats {
  requests: number;
  bytes: number;
  /** Range header of the tag's first request ("none" without one): `fast`'s first read must fit 16 KiB. */
  firstRange: string | undefined;
  /** Every request's Range header and user agent, in arrival order (for --verbose). */
  log: string[];
}

export interface BenchOrigin {
  url: string;
  port: number;
  stats(tag: string): TagStats;
  /** Requests in flight and the time of the last byte written, for waiting on background work. */
  inFlight(): number;
  lastActivity(): number;
  close(): Promise<void>;
}

const contentTypes: Record<string, string> = {
  ".mp4": "video/mp4", ".webm": "video/webm", ".mp3": "audio/mpeg", ".flac": "audio/flac",
  ".jpg": "image/jpeg", ".tif": "image/tiff", ".tiff": "image/tiff",
};

export async function startBenchOrigin(dir: string): Promise<BenchOrigin> {
  const tags = new Map<string, TagStats>();
  let inFlight = 0;
  let last = Date.now();
  const statsOf = (tag: string): TagStats => {
    let s = tags.get(tag);
    if (!s) tags.set(tag, (s = { requests: 0, bytes: 0, firstRange: undefined, log: [] }));
    return s;
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://origin.bench");
    const s = statsOf(url.searchParams.get("t") ?? "");
    s.requests++;
    s.firstRange ??= req.headers.range ?? "none";
    s.log.push(`${req.headers.range ?? "no range"} (${req.headers["user-agent"] ?? "?"})`);
    inFlight++;
    last = Date.now();
    res.once("close", () => {
      inFlight--;
      last = Date.now();
    });
    const write = res.write.bind(res);
    res.write = ((chunk: Buffer | string, ...rest: never[]) => {
      const n = typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
      s.bytes += n;
      last = Date.now();
      return write(chunk, ...rest);
    }) as typeof res.write;
    serve(dir, url, req, res).catch(() => res.destroy());
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stats: (tag) => { const s = statsOf(tag); return { ...s, log: [...s.log] }; },
    inFlight: () => inFlight,
    lastActivity: () => last,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function serve(dir: string, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const [kind, name] = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if ((kind !== "files" && kind !== "norange") || !name) return void res.writeHead(404).end();
  const file = join(dir, basename(name));
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return void res.writeHead(404).end();
  }
  const type = contentTypes[extname(file)] ?? "application/octet-stream";
  const match = kind === "files" ? /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "") : null;
  if (!match || (match[1] === "" && match[2] === "")) {
    res.writeHead(200, { "content-length": String(size), "content-type": type, ...(kind === "files" ? { "accept-ranges": "bytes" } : {}) });
    if (req.method === "HEAD") return void res.end();
    return void createReadStream(file).pipe(res);
  }
  const start = match[1] === "" ? Math.max(0, size - Number(match[2])) : Number(match[1]);
  const end = match[1] === "" || match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return void res.writeHead(416, { "content-range": `bytes */${size}` }).end();
  res.writeHead(206, {
    "content-length": String(end - start + 1),
    "content-range": `bytes ${start}-${end}/${size}`,
    "accept-ranges": "bytes",
    "content-type": type,
  });
  if (req.method === "HEAD") return void res.end();
  createReadStream(file, { start, end }).pipe(res);
}
