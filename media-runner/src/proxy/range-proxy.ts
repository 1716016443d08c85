/**
 * The loopback Range proxy. ffprobe and ffmpeg are given http://127.0.0.1:<port>/source/<random id>
 * instead of the origin URL, so they never open a socket to the world: every byte they read comes
 * through a RemoteSource, which applies the SSRF checks on each connection and redirect hop, the size cap
 * and the deadline. Ids are unguessable and live only for one job, so the proxy is not an open relay.
 * A source whose origin ignores Range is spooled (read once into a temporary file) so that seeks do not
 * start the download again.
 *
 * Paced sources answer an engine's open-ended Range request with a short 206 (64 KiB, doubling while the
 * engine reads on, up to 1 MiB) and `Connection: close`; the engines run with `-reconnect 1` (engine-args.ts)
 * and ask again from where the answer ended. Without this the proxy pushed whatever the kernel's socket send
 * buffer took (it grows to 4 MiB on loopback, and Node cannot cap it), all pulled from the origin, and an
 * engine that read 100 KB and then seeked left megabytes pulled for nothing.
 *
 * The engines run with this proxy as their HTTP proxy (run-process.ts), so every request they make arrives here
 * in absolute form (`GET http://host:port/path`). The proxy never forwards: a request whose target is not this
 * proxy itself gets 403, so a URL that reached an engine around the manifest model opens no connection anywhere.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { RemoteSource } from "../fetch/remote-source.ts";
import { isRunnerError } from "../errors.ts";
import { parseRange } from "./range-header.ts";
import { Spool } from "./spool.ts";

export interface ProxyRegistration {
  url: string;
  release(): void;
}

interface Registered {
  source: RemoteSource;
  spool?: Promise<Spool>;
  paced: boolean;
  /** Where a paced answer ended (the engine's next request starts there) -> the size of the next answer. */
  continuations: Map<number, number>;
}

export interface RegisterOptions {
  /** Short answers to open-ended ranges; only for engines started with engineReconnectArgs. */
  paced?: boolean;
}

/** First paced answer from an offset, and the most it grows to while the engine reads sequentially. */
export const pacedFirstBytes = 64 * 1024;
export const pacedMaxBytes = 1024 * 1024;
/** Continuations remembered per source (an engine has one or two connections open at a time). */
const maxContinuations = 16;

/** What the engines read from: the source itself, or its spool when the origin has no Range support. */
type Reader = Pick<RemoteSource, "read"> & { readonly size: number | undefined };

/** Answers a request it recognises (returns true) or leaves it to the next route (false). */
export type ProxyRoute = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

export class RangeProxy {
  private readonly sources = new Map<string, Registered>();
  private readonly routes: ProxyRoute[] = [];
  private server: Server | undefined;
  private base = "";
  private refused = 0;

  /** Listens on 127.0.0.1, port chosen by the system. */
  async start(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    // A tunnel (an engine asked for https through its proxy) is a target elsewhere: refused like the others.
    server.on("connect", (_req, socket: import("node:stream").Duplex) => {
      this.refused++;
      socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    });
    server.keepAliveTimeout = 2_000;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    this.server = server;
    this.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** http://127.0.0.1:<port>, once started. */
  get baseUrl(): string {
    return this.base;
  }

  /** Requests refused because they named a target other than this proxy (an engine asked for the world). */
  get refusedTargets(): number {
    return this.refused;
  }

  /**
   * Accepts an origin-form target (/path) or an absolute-form one naming this proxy (rewritten to its path).
   * Any other target is never contacted.
   */
  private ownTarget(req: IncomingMessage): boolean {
    const target = req.url ?? "";
    if (target.startsWith("/")) return true;
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return false;
    }
    if (url.protocol !== "http:" || url.username !== "" || url.password !== "" || url.origin !== this.base) return false;
    req.url = url.pathname + url.search;
    return true;
  }

  /** Extra paths served before /source/ (HLS manifest sessions, see manifest-session.ts). */
  addRoute(route: ProxyRoute): void {
    this.routes.push(route);
  }

  /** Makes source readable at a fresh URL until release() is called. */
  register(source: RemoteSource, options: RegisterOptions = {}): ProxyRegistration {
    if (!this.server) throw new Error("range proxy not started");
    const id = randomBytes(18).toString("base64url");
    const entry: Registered = { source, paced: options.paced === true, continuations: new Map() };
    this.sources.set(id, entry);
    return {
      url: `${this.base}/source/${id}`,
      release: () => {
        this.sources.delete(id);
        void entry.spool?.then((spool) => spool.close(), () => {});
      },
    };
  }

  private reader(entry: Registered): Promise<Reader> | Reader {
    if (entry.source.rangeSupported) return entry.source;
    entry.spool ??= Spool.start(entry.source);
    return entry.spool;
  }

  private paceFor(entry: Registered, start: number): number {
    const next = entry.continuations.get(start);
    entry.continuations.delete(start);
    return next ?? pacedFirstBytes;
  }

  private remember(entry: Registered, offset: number, bytes: number): void {
    if (entry.continuations.size >= maxContinuations) {
      const oldest = entry.continuations.keys().next().value;
      if (oldest !== undefined) entry.continuations.delete(oldest);
    }
    entry.continuations.set(offset, bytes);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.ownTarget(req)) {
      this.refused++;
      return void res.writeHead(403, { connection: "close" }).end();
    }
    for (const route of this.routes) if (await route(req, res)) return;
    const id = /^\/source\/([\w-]+)$/.exec(req.url ?? "")?.[1];
    const entry = id ? this.sources.get(id) : undefined;
    if (!entry) return void res.writeHead(404).end();
    if (req.method !== "GET" && req.method !== "HEAD") return void res.writeHead(405, { allow: "GET, HEAD" }).end();
    const { source } = entry;
    // An engine reconnecting after the origin failed: fail it now instead of pulling again.
    if (source.failure) return void res.writeHead(502).end();
    let reader: Reader;
    try {
      reader = await this.reader(entry);
    } catch {
      return void res.writeHead(500).end();
    }
    const size = reader.size;
    const range = parseRange(req.headers.range, size);
    if (range.kind === "unsatisfiable") {
      return void res.writeHead(416, size === undefined ? {} : { "content-range": `bytes */${size}` }).end();
    }
    const start = range.kind === "range" ? range.start : 0;
    const asked = range.kind === "range" ? range.end : size === undefined ? Infinity : size - 1;
    const cap = range.kind === "range" && entry.paced && source.rangeSupported ? this.paceFor(entry, start) : Infinity;
    const end = Math.min(asked, start + cap - 1);
    const headers: Record<string, string> = { "content-type": source.contentType ?? "application/octet-stream" };
    if (end < asked) {
      // The engine asks again from end + 1 (-reconnect); it gets a larger answer then.
      headers.connection = "close";
      this.remember(entry, end + 1, Math.min(cap * 2, pacedMaxBytes));
    }
    if (size !== undefined) {
      headers["accept-ranges"] = "bytes";
      headers["content-length"] = String(end - start + 1);
    }
    if (range.kind === "range") headers["content-range"] = `bytes ${start}-${end}/${size}`;
    res.writeHead(range.kind === "range" ? 206 : 200, headers);
    if (req.method === "HEAD" || (size !== undefined && start > end)) return void res.end();
    try {
      // pipeline ends the generator (and with it the upstream request) when the engine hangs up early.
      await pipeline(Readable.from(reader.read(start, end), { objectMode: false }), res);
    } catch (error) {
      // The engine closing a connection after a seek is normal; origin failures were recorded on the source.
      if (!isRunnerError(error)) return;
      res.destroy();
    }
  }
}
