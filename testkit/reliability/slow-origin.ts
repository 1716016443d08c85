/**
 * Slow media origins for the starvation suite, one per loopback address (127.0.2.1, 127.0.2.2, ...) on one port,
 * so each is a distinct origin. Each serves real files with Range support, but every answer sends only its first
 * `fastBytes` at once and the rest `pieceBytes` every `pieceMs`: the edge's small probe reads finish, while the
 * runner's job (which reads much more of the file) spends its time waiting on the network.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { join, normalize } from "node:path";

export interface SlowOrigins {
  /** URL of `file` on origin i. */
  url(i: number, file: string, nonce: string): string;
  /** Allow-list entry covering every slow origin. */
  allowlist: string;
  close(): Promise<void>;
}

export interface SlowOptions {
  /** Bytes of each answer sent at once. */
  fastBytes?: number;
  /** Then this many bytes every pieceMs. */
  pieceBytes?: number;
  pieceMs?: number;
}

const defaults = { fastBytes: 64 * 1024, pieceBytes: 1024, pieceMs: 250 };
/** Most origins one call starts (addresses 127.0.2.1 to .250). */
const maxOrigins = 250;

export async function startSlowOrigins(count: number, dir: string, options: SlowOptions = {}): Promise<SlowOrigins> {
  if (count < 1 || count > maxOrigins) throw new Error(`1 to ${maxOrigins} slow origins`);
  const { fastBytes, pieceBytes, pieceMs } = { ...defaults, ...options };
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const files = new Map<string, Buffer>();
  const fileOf = (name: string): Buffer | undefined => {
    const safe = normalize(name).replace(/^(\.\.[/\\])+/, "");
    if (!files.has(safe)) {
      try {
        files.set(safe, readFileSync(join(dir, safe)));
      } catch {
        return undefined;
      }
    }
    return files.get(safe);
  };
  let port = 0;
  for (let i = 0; i < count; i++) {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://slow");
      const body = fileOf(url.pathname.replace(/^\/media\//, ""));
      if (!body) return void res.writeHead(404).end();
      const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
      const start = range ? Number(range[1]) : 0;
      const end = range && range[2] !== "" ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
      if (start > end) return void res.writeHead(416, { "content-range": `bytes */${body.length}` }).end();
      res.writeHead(range ? 206 : 200, {
        "content-type": "video/mp4",
        "accept-ranges": "bytes",
        "content-length": String(end - start + 1),
        ...(range ? { "content-range": `bytes ${start}-${end}/${body.length}` } : {}),
      });
      let offset = Math.min(end + 1, start + fastBytes);
      res.write(body.subarray(start, offset));
      if (offset > end) return void res.end();
      const timer = setInterval(() => {
        const next = Math.min(end + 1, offset + pieceBytes);
        res.write(body.subarray(offset, next));
        offset = next;
        if (offset > end) {
          clearInterval(timer);
          res.end();
        }
      }, pieceMs);
      timers.add(timer);
      res.on("close", () => {
        clearInterval(timer);
        timers.delete(timer);
      });
    });
    server.on("connection", (s: Socket) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, `127.0.2.${i + 1}`, () => resolve());
    });
    port = (server.address() as { port: number }).port;
    servers.push(server);
  }
  return {
    url: (i, file, nonce) => `http://127.0.2.${(i % count) + 1}:${port}/media/${file}?n=${nonce}`,
    allowlist: "127.0.2.0/24",
    async close() {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
