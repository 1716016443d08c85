/**
 * Serves one HLS stream to ffmpeg through the loopback proxy. The stream's playlist is registered at
 * /m/<session>/<n>/<name>; when ffmpeg asks for it the session fetches it from the origin (SSRF-checked,
 * size-capped), rewrites every URI in it to another session path (manifest-rewrite.ts) and serves the result.
 * Segments and init sections are opened as RemoteSources and served by the proxy's Range path; keys are served
 * whole. Nested playlists are bounded in depth (a variant loop ends there) and the session in entries.
 * ffmpeg is started with the protocol whitelist of hls-input-args.ts, so it can open nothing else.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { classifyUrlHost, type Allowlist } from "../../../shared/net/index.ts";
import { RunnerError, isRunnerError } from "../errors.ts";
import type { RemoteSource } from "../fetch/remote-source.ts";
import { discard, openUpstream, upstreamError, type UpstreamContext } from "../fetch/upstream.ts";
import { rewriteHlsPlaylist, type UriRole } from "./manifest-rewrite.ts";
import { inspectionOriginRequestBudget } from "../../../shared/limits.ts";
import type { ProxyRegistration, RangeProxy } from "./range-proxy.ts";

export interface ManifestLimits {
  /** Largest playlist read. */
  maxManifestBytes: number;
  /** Master -> media playlist: 2. A playlist named by a media playlist is refused. */
  maxDepth: number;
  /** URLs one session may name (segments included). */
  maxEntries: number;
  /** Largest key file (an AES-128 key is 16 bytes). */
  maxKeyBytes: number;
}

export const defaultManifestLimits: ManifestLimits = {
  maxManifestBytes: 2 * 1024 * 1024,
  maxDepth: 2,
  maxEntries: inspectionOriginRequestBudget, // each URL costs a request when used: more could never all be read
  maxKeyBytes: 1024,
};

export interface ManifestSessionOptions {
  upstream: UpstreamContext;
  allowlist: Allowlist;
  /** Opens a Range-read source for a segment (per-job byte cap and deadline). */
  newSource(url: URL): RemoteSource;
  limits?: ManifestLimits;
  /** Keep only the first N segments of media playlists (previews). */
  keepSegments?: number;
}

interface Entry {
  url: URL;
  role: UriRole;
  depth: number;
  /** A playlist made here (DASH previews), served instead of fetching `url`. */
  text?: string;
  /** A segment's source once opened, and its /source/ registration. */
  served?: Promise<ProxyRegistration>;
}

export class ManifestSession {
  /** First failure met while serving ffmpeg; the job reports it instead of ffmpeg's generic error. */
  failure: RunnerError | undefined;
  /**
   * Aborted (with the failure as reason) at the first failure: give it to the engine's runProcess. ffmpeg's HLS
   * demuxer retries a refused variant as if it were a live playlist, so a refusal must end the engine.
   */
  readonly signal: AbortSignal;
  private readonly aborter = new AbortController();
  private readonly entries: Entry[] = [];
  private readonly byUrl = new Map<string, number>();
  private readonly limits: ManifestLimits;
  readonly sources: RemoteSource[] = [];

  constructor(
    private readonly base: string,
    private readonly proxy: RangeProxy,
    private readonly options: ManifestSessionOptions,
  ) {
    this.limits = options.limits ?? defaultManifestLimits;
    this.signal = this.aborter.signal;
  }

  /** A playlist written here rather than fetched (its URIs are absolute and rewritten like any other). */
  addSynthetic(text: string, base: URL): string {
    const index = this.entries.push({ url: base, role: "playlist", depth: this.limits.maxDepth - 1, text }) - 1;
    return `${this.base}/${index}/index.m3u8`;
  }

  /** The proxy URL standing for `url`; the first call for a URL fixes its role and depth. */
  add(url: URL, role: UriRole, depth: number): string {
    url.hash = "";
    const key = `${role} ${url.href}`;
    // Checked on every reference, not only the first: a media playlist naming the master is a loop.
    if (role === "playlist" && depth >= this.limits.maxDepth) {
      throw this.fail(new RunnerError("UNSUPPORTED_MEDIA", `playlists nest deeper than ${this.limits.maxDepth} levels (a variant loop?)`));
    }
    let index = this.byUrl.get(key);
    if (index === undefined) {
      const verdict = classifyUrlHost(url, this.options.allowlist).decision;
      if (!verdict.allowed) throw this.fail(new RunnerError("SSRF_BLOCKED", "the playlist names a denied address", verdict.reason));
      if (this.entries.length >= this.limits.maxEntries) {
        throw this.fail(new RunnerError("UNSUPPORTED_MEDIA", `the stream names more than ${this.limits.maxEntries} URLs`));
      }
      index = this.entries.push({ url, role, depth }) - 1;
      this.byUrl.set(key, index);
    }
    // The original file name is kept last: ffmpeg's HLS demuxer may check segment extensions.
    const name = url.pathname.slice(url.pathname.lastIndexOf("/") + 1).replace(/[^\w.-]/g, "_") || "index";
    return `${this.base}/${index}/${name}`;
  }

  fail(error: RunnerError): RunnerError {
    if (!this.failure) {
      this.failure = error;
      this.aborter.abort(error);
    }
    return error;
  }

  /** Answers a request for /m/<session>/<index>/<name>. */
  async serve(index: number, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const entry = this.entries[index];
    if (!entry) return void res.writeHead(404).end();
    if (this.failure) return void res.writeHead(this.failure.status >= 500 ? 502 : this.failure.status).end();
    if (req.method !== "GET" && req.method !== "HEAD") return void res.writeHead(405, { allow: "GET, HEAD" }).end();
    try {
      if (entry.role === "playlist") {
        const text = entry.text !== undefined ? { text: entry.text, finalUrl: entry.url } : await this.fetchText(entry.url, this.limits.maxManifestBytes);
        if (!text.text.replace(/^\uFEFF/, "").trimStart().startsWith("#EXTM3U")) {
          throw this.fail(new RunnerError("CORRUPT_MEDIA", "a nested playlist is not an HLS playlist"));
        }
        const body = rewriteHlsPlaylist(text.text, {
          base: text.finalUrl,
          register: (url, role) => this.add(url, role, entry.depth + 1),
          ...(this.options.keepSegments !== undefined ? { keepSegments: this.options.keepSegments } : {}),
        });
        res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl", "content-length": Buffer.byteLength(body) });
        return void res.end(req.method === "HEAD" ? undefined : body);
      }
      if (entry.role === "key") {
        const key = await this.fetchBytes(entry.url, this.limits.maxKeyBytes);
        res.writeHead(200, { "content-type": "application/octet-stream", "content-length": key.bytes.length });
        return void res.end(req.method === "HEAD" ? undefined : key.bytes);
      }
      entry.served ??= this.openSource(entry.url);
      const registration = await entry.served;
      // The proxy's Range path serves it: one block cache, the same byte cap and deadline as any source.
      res.writeHead(302, { location: registration.url });
      return void res.end();
    } catch (error) {
      const failure = this.fail(isRunnerError(error) ? error : upstreamError(error, false));
      if (!res.headersSent) res.writeHead(failure.status >= 500 ? 502 : failure.status).end();
      else res.destroy();
    }
  }

  /** Releases every source registration (the job is over). */
  release(): void {
    for (const entry of this.entries) void entry.served?.then((r) => r.release(), () => {});
  }

  private async openSource(url: URL): Promise<ProxyRegistration> {
    const source = this.options.newSource(url);
    this.sources.push(source);
    await source.open();
    return this.proxy.register(source);
  }

  private async fetchText(url: URL, maxBytes: number): Promise<{ text: string; finalUrl: URL }> {
    const { bytes, finalUrl } = await this.fetchBytes(url, maxBytes);
    return { text: new TextDecoder("utf-8", { fatal: false }).decode(bytes), finalUrl };
  }

  private async fetchBytes(url: URL, maxBytes: number): Promise<{ bytes: Buffer; finalUrl: URL }> {
    const response = await openUpstream(url, this.options.upstream);
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > maxBytes) throw this.fail(new RunnerError("PAYLOAD_TOO_LARGE", `a playlist or key is larger than ${maxBytes} bytes`));
        chunks.push(chunk);
      }
    } catch (error) {
      throw this.fail(upstreamError(error, false));
    } finally {
      discard(response.body);
    }
    return { bytes: Buffer.concat(chunks, total), finalUrl: response.finalUrl };
  }
}

/** Sessions by id, mounted on the proxy under /m/. */
export class ManifestSessions {
  private readonly sessions = new Map<string, ManifestSession>();

  constructor(private readonly proxy: RangeProxy) {
    proxy.addRoute((req, res) => this.route(req, res));
  }

  /**
   * Opens a session for the playlist at `url` (or for a playlist written here, `{ text, base }`); ffmpeg reads
   * the returned URL. Call release() when done.
   */
  open(playlist: URL | { text: string; base: URL }, options: ManifestSessionOptions): { url: string; session: ManifestSession; release(): void } {
    const id = randomBytes(18).toString("base64url");
    const session = new ManifestSession(`${this.proxy.baseUrl}/m/${id}`, this.proxy, options);
    this.sessions.set(id, session);
    const entry = playlist instanceof URL ? session.add(playlist, "playlist", 0) : session.addSynthetic(playlist.text, playlist.base);
    return {
      url: entry,
      session,
      release: () => {
        this.sessions.delete(id);
        session.release();
      },
    };
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const match = /^\/m\/([\w-]+)\/(\d+)\/[\w.-]+$/.exec(req.url ?? "");
    if (!match) return false;
    const session = this.sessions.get(match[1]!);
    if (!session) {
      res.writeHead(404).end();
      return true;
    }
    await session.serve(Number(match[2]), req, res);
    return true;
  }
}

const mounted = new WeakMap<RangeProxy, ManifestSessions>();

/** The sessions mounted on a proxy (one set per proxy, mounted on first use). */
export function manifestSessionsOf(proxy: RangeProxy): ManifestSessions {
  let sessions = mounted.get(proxy);
  if (!sessions) {
    sessions = new ManifestSessions(proxy);
    mounted.set(proxy, sessions);
  }
  return sessions;
}
