/**
 * Seeded request fuzzing for the reliability suites: random methods, paths, content types, bodies and query
 * strings against the API, and inspections of corrupted media made from the test fixtures by byte flips and
 * truncation (served by a small Range-capable origin). Same seed, same requests.
 */
import { readFileSync, readdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { extname, join } from "node:path";
import { devReloadText, devReloads } from "./service.ts";

/** mulberry32: small, fast, good enough for test inputs. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
const int = (r: () => number, max: number) => Math.floor(r() * max);

const types: Record<string, string> = {
  ".png": "image/png", ".jpg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif", ".mp4": "video/mp4",
  ".webm": "video/webm", ".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".flac": "audio/flac", ".wav": "audio/wav", ".m4a": "audio/mp4",
};

/** Corrupts `bytes` deterministically: flips, truncation, a zeroed run, or a duplicated chunk. */
export function corrupt(bytes: Buffer, seed: number): Buffer {
  const r = rng(seed);
  const out = Buffer.from(bytes);
  switch (int(r, 4)) {
    case 0: {
      for (let i = 0, n = 1 + int(r, 64); i < n; i++) { const at = int(r, out.length); out[at] = out[at]! ^ (1 << int(r, 8)); }
      return out;
    }
    case 1:
      return out.subarray(0, Math.max(1, int(r, out.length)));
    case 2: {
      const start = int(r, out.length);
      out.fill(0, start, Math.min(out.length, start + 1 + int(r, 4096)));
      return out;
    }
    default: {
      const at = int(r, out.length);
      return Buffer.concat([out.subarray(0, at), out.subarray(Math.max(0, at - 2048), at), out.subarray(at)]);
    }
  }
}

/**
 * Origin of corrupted media: /c/<seed>/<fixture> serves corrupt(fixture, seed) with Range support and the
 * fixture's content type (or a wrong one with ?type=).
 */
export async function startCorruptOrigin(dirs: string[]): Promise<{ url: string; port: number; files: string[]; close(): Promise<void> }> {
  const files = new Map<string, Buffer>();
  for (const dir of dirs) {
    for (const name of readdirSync(dir)) if (types[extname(name)]) files.set(name, readFileSync(join(dir, name)));
  }
  const cache = new Map<string, Buffer>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://origin");
    const [, kind, seed, name] = url.pathname.split("/");
    const source = files.get(name ?? "");
    if (kind !== "c" || !source) return void res.writeHead(404).end();
    const key = `${seed}/${name}`;
    let body = cache.get(key);
    if (!body) {
      body = corrupt(source, Number(seed));
      if (cache.size > 64) cache.clear(); // bounded: the suites make thousands of variants
      cache.set(key, body);
    }
    const type = url.searchParams.get("type") ?? types[extname(name!)]!;
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    if (range && Number(range[1]) < body.length) {
      const start = Number(range[1]);
      const end = Math.min(body.length - 1, range[2] ? Number(range[2]) : body.length - 1);
      res.writeHead(206, { "content-type": type, "accept-ranges": "bytes", "content-range": `bytes ${start}-${end}/${body.length}`, "content-length": end - start + 1 });
      return void res.end(body.subarray(start, end + 1));
    }
    res.writeHead(200, { "content-type": type, "accept-ranges": "bytes", "content-length": body.length });
    res.end(body);
  });
  const sockets = new Set<import("node:net").Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    files: [...files.keys()].sort(),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
  /** What it is, for the failure report. */
  label: string;
}

const methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"] as const;
const contentTypes = [
  "application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x", "application/xml", "application/octet-stream", "", "application/json; charset=latin1",
  "APPLICATION/JSON", "application/merge-patch+json", "*/*",
];
const profiles = ["fast", "standard", "full", "embed", "bogus", "", "FAST"];
const queryParts = ["profile", "fields", "expand", "debug", "include", "x", "url", "webhookUrl", "%zz", "a[]"];
const queryValues = ["1", "true", "data.metadata", "rawHeaders", "", "%00", "..", "a,b,,c", "\u00e9", "9".repeat(50), "%E0%A4%A"];
const paths = [
  "/api/v1/inspect", "/api/v1/inspect", "/api/v1/inspect", "/api/v1/job/abc", "/api/v1/job/", "/api/v1/thumbnails/x.webp",
  "/health", "/openapi.json", "/api/v1/inspect/", "/api/v2/inspect", "/%2e%2e/etc", "/api/v1/job/" + "a".repeat(300),
];
const badUrls = [
  "", "ftp://x/y", "http://", "http://[::1", "javascript:alert(1)", "http://user:pw@example.test/", "http://127.0.0.1:1/",
  "http://0x7f.1/", "data:image/png;base64,AAAA", "x".repeat(5000), "http://example.test/" + "%".repeat(100),
];

function randomQuery(r: () => number): string {
  const n = int(r, 4);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`${pick(r, queryParts)}=${pick(r, queryValues)}`);
  if (r() < 0.5) parts.push(`profile=${pick(r, profiles)}`);
  return parts.join("&");
}

function randomBytes(r: () => number, n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) out[i] = int(r, 256);
  return out;
}

/**
 * The i-th request of seed `seed`: mostly inspect calls (well-formed with corrupted media, or malformed in
 * one way), plus other methods, paths and content types.
 */
export function fuzzRequest(seed: number, i: number, corruptOrigin: { url: string; files: string[] }): FuzzRequest {
  const r = rng(seed * 1_000_003 + i);
  const media = () => {
    const file = pick(r, corruptOrigin.files);
    const type = r() < 0.2 ? `?type=${encodeURIComponent(pick(r, Object.values(types)))}` : "";
    return `${corruptOrigin.url}/c/${int(r, 1_000_000)}/${file}${type}`;
  };
  const roll = r();
  const query = randomQuery(r);
  const path = `/api/v1/inspect${query ? `?${query}` : ""}`;
  if (roll < 0.45) {
    return { method: "POST", path, headers: { "content-type": "application/json" }, body: JSON.stringify({ url: media() }), label: "corrupt media" };
  }
  if (roll < 0.6) {
    const body = pick(r, [
      JSON.stringify({ url: pick(r, badUrls) }),
      JSON.stringify({ url: media(), webhookUrl: pick(r, badUrls) }),
      JSON.stringify({ url: int(r, 100) }),
      JSON.stringify([media()]),
      JSON.stringify({ url: media(), extra: { deep: [1, 2, { x: "y" }] } }),
      "{\"url\":",
      "null",
      "",
      "{" + "\"a\":{".repeat(200) + "}".repeat(200) + "}",
    ]);
    return { method: "POST", path, headers: { "content-type": "application/json" }, body, label: "malformed body" };
  }
  if (roll < 0.8) {
    const type = pick(r, contentTypes);
    const body = r() < 0.5 ? JSON.stringify({ url: media() }) : randomBytes(r, int(r, 2048));
    return { method: "POST", path, headers: type ? { "content-type": type } : {}, body, label: `content-type ${type || "(none)"}` };
  }
  const method = pick(r, methods);
  const target = pick(r, paths) + (r() < 0.5 ? `?${randomQuery(r)}` : "");
  const hasBody = method !== "GET" && method !== "HEAD" && r() < 0.7;
  return {
    method,
    path: target,
    headers: { "content-type": pick(r, contentTypes) || "text/plain" },
    ...(hasBody ? { body: randomBytes(r, int(r, 1024)) } : {}),
    label: `${method} ${target.slice(0, 40)}`,
  };
}

/** Sends one fuzz request; status 0 means no answer within `timeoutMs` (a hang) or a broken connection. */
export async function send(base: string, req: FuzzRequest, timeoutMs: number): Promise<{ status: number; ms: number; text: string }> {
  const first = await sendOnce(base, req, timeoutMs);
  if (first.status !== 503 || !first.text.startsWith(devReloadText)) return first;
  devReloads.count += 1; // the dev server's reload, not the service: resent once (see service.ts)
  return sendOnce(base, req, timeoutMs);
}

async function sendOnce(base: string, req: FuzzRequest, timeoutMs: number): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  try {
    const res = await fetch(base + req.path, {
      method: req.method,
      headers: req.headers,
      ...(req.body !== undefined ? { body: typeof req.body === "string" ? req.body : new Uint8Array(req.body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    return { status: res.status, ms: performance.now() - started, text: text.slice(0, 300) };
  } catch (err) {
    return { status: 0, ms: performance.now() - started, text: String(err) };
  }
}
