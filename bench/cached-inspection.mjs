// Cost of a cached inspection against a trivial route of the same Worker, under `wrangler dev` (local mode,
// loopback only), then the edge image pipeline on a 12-megapixel JPEG (bench/edge-image-pipeline.mjs).
//   node bench/cached-inspection.mjs [--requests 300] [--file png-opaque.png] [--skip-pipeline]
// Run it inside a loopback-only namespace:
//   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && node bench/cached-inspection.mjs'
// Both routes go through the same wrangler dev proxy and the same Node keep-alive client. A cached answer comes
// from the isolate's edge cache (no Durable Object call, no I/O), so most of the ratio is what wrangler dev adds
// to any POST with a body; a third series, the same POST refused 400 (an ftp: URL) before any inspection, shows
// that floor, and `cached - floor` is the inspection's own cost (validation, cache lookup, projection, JSON).
import { spawn, spawnSync } from "node:child_process";
import { createReadStream, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const imagesDir = join(root, "test", "fixtures", "images");
const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "300" },
    file: { type: "string", default: "png-opaque.png" },
    "skip-pipeline": { type: "boolean", default: false },
  },
});
const requests = Number(values.requests);
const startupTimeoutMs = 60_000;
const warmupRequests = 20;

/** A tiny loopback origin for the fixture images (Range-capable, like a real static host), counting hits. */
async function startOrigin() {
  const types = { ".png": "image/png", ".jpg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif" };
  let hits = 0;
  const server = createServer((req, res) => {
    hits += 1;
    const path = join(imagesDir, new URL(req.url ?? "/", "http://o").pathname.replace(/^\/+/, "").replace(/\.\./g, ""));
    if (!existsSync(path) || !statSync(path).isFile()) return res.writeHead(404).end();
    const size = statSync(path).size;
    const type = types[extname(path)] ?? "application/octet-stream";
    const m = req.headers.range?.match(/^bytes=(\d+)-(\d*)$/);
    if (m) {
      const start = Number(m[1]);
      const end = Math.min(m[2] ? Number(m[2]) : size - 1, size - 1);
      if (start >= size) return res.writeHead(416, { "content-range": `bytes */${size}` }).end();
      res.writeHead(206, { "content-type": type, "accept-ranges": "bytes", "content-range": `bytes ${start}-${end}/${size}`, "content-length": end - start + 1 });
      return createReadStream(path, { start, end }).pipe(res);
    }
    res.writeHead(200, { "content-type": type, "accept-ranges": "bytes", "content-length": size });
    createReadStream(path).pipe(res);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { port: server.address().port, hits: () => hits, close: () => new Promise((r) => server.close(r)) };
}

async function freePort() {
  const s = createNetServer();
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** Starts `wrangler dev` itself (not via npx, so SIGTERM reaches it and it stops its workerd). */
async function startWrangler(originPort) {
  const port = await freePort();
  const inspectorPort = await freePort();
  const state = join(root, ".tmp", "bench-cached-inspection", "state");
  rmSync(state, { recursive: true, force: true });
  mkdirSync(state, { recursive: true });
  const child = spawn(join(root, "node_modules", ".bin", "wrangler"), [
    "dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort),
    "--persist-to", state, "--show-interactive-dev-session=false", "--log-level", "warn",
    // wrangler.toml says production, where an SSRF allow-list is refused: this bench is local development.
    "--var", "ENVIRONMENT:development",
    "--var", `SSRF_ALLOWLIST:127.0.0.1:${originPort}`,
    // Hundreds of inspections from one client: the per-client limit (60 per minute) would answer 429. The
    // limiter binding itself costs well under a microsecond per call in miniflare (measured by looping it).
    "--var", "INSPECT_RATE_LIMIT:0",
  ], { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" } });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise((r) => child.once("exit", r));
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${output}`);
    if (Date.now() - started > startupTimeoutMs) {
      child.kill("SIGTERM");
      throw new Error(`wrangler dev did not answer within ${startupTimeoutMs} ms:\n${output}`);
    }
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    pid: child.pid,
    startupMs: Date.now() - started,
    async stop() {
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) throw new Error("wrangler dev did not stop on SIGTERM");
    },
  };
}

async function timed(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

/** Processes descended from `pid` (wrangler starts workerd as a child); checked again after the stop. */
function descendants(pid) {
  const rows = spawnSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" }).stdout.trim().split("\n")
    .map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/)).filter(Boolean).map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
  const found = [];
  const walk = (p) => rows.filter((r) => r.ppid === p).forEach((r) => (found.push(r), walk(r.pid)));
  walk(pid);
  return found;
}

/** Running (a zombie waiting to be reaped counts as gone: it holds no port or memory). */
const alive = (pid) => {
  const stat = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim();
  return stat !== "" && !stat.startsWith("Z");
};

const origin = await startOrigin();
const wrangler = await startWrangler(origin.port);
const workerd = descendants(wrangler.pid).filter((p) => /workerd/.test(p.args));
try {
  const mediaUrl = `http://127.0.0.1:${origin.port}/${values.file}`;
  const inspect = async () => {
    const res = await fetch(`${wrangler.base}/api/v1/inspect`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: mediaUrl }),
    });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`inspect answered ${res.status}: ${JSON.stringify(body)}`);
    return body;
  };
  // Same body length as inspect()'s; the Worker answers 400 INVALID_URL right after validating it.
  const floor = async () => {
    const res = await fetch(`${wrangler.base}/api/v1/inspect`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: mediaUrl.replace(/^http:/, "ftp:") }),
    });
    await res.arrayBuffer();
    if (res.status !== 400) throw new Error(`floor answered ${res.status}`);
  };
  const health = async () => {
    const res = await fetch(`${wrangler.base}/health`);
    if (!res.ok) throw new Error(`health answered ${res.status}`);
    await res.arrayBuffer();
  };

  const cold = await timed(async () => {
    const body = await inspect();
    if (body.processing.status !== "complete") throw new Error(`first inspection not complete: ${JSON.stringify(body.processing)}`);
  });
  for (let i = 0; i < warmupRequests; i++) {
    await health();
    await inspect();
    await floor();
  }
  const originHitsBefore = origin.hits();

  // Interleaved, so drift (GC, CPU frequency, other load) hits both series alike.
  const cached = [];
  const trivial = [];
  const posts = [];
  for (let i = 0; i < requests; i++) {
    trivial.push(await timed(health));
    let source;
    cached.push(await timed(async () => (source = (await inspect()).responseSource)));
    if (source !== "cache") throw new Error(`expected responseSource cache, got ${source}`);
    posts.push(await timed(floor));
  }
  if (origin.hits() !== originHitsBefore) throw new Error("the origin was contacted during the cached series");

  const row = (name, xs) =>
    `${name.padEnd(34)} ${quantile(xs, 0.5).toFixed(2).padStart(8)} ${quantile(xs, 0.95).toFixed(2).padStart(8)} ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2).padStart(8)}`;
  console.log(`wrangler dev (local mode) on 127.0.0.1, started in ${wrangler.startupMs} ms; ${requests} sequential requests per series, interleaved`);
  console.log(`first (uncached) inspection of ${values.file}: ${cold.toFixed(1)} ms (probe + edge previews)`);
  console.log(`${"route".padEnd(34)} ${"median".padStart(8)} ${"p95".padStart(8)} ${"mean".padStart(8)}  (ms)`);
  console.log(row("GET /health", trivial));
  console.log(row("POST /api/v1/inspect (cached)", cached));
  console.log(row("POST /api/v1/inspect (400 floor)", posts));
  console.log(`ratio cached/trivial: median ${(quantile(cached, 0.5) / quantile(trivial, 0.5)).toFixed(2)}x, p95 ${(quantile(cached, 0.95) / quantile(trivial, 0.95)).toFixed(2)}x; ` +
    `origin requests during the cached series: ${origin.hits() - originHitsBefore}`);
  console.log(`POST floor/trivial: median ${(quantile(posts, 0.5) / quantile(trivial, 0.5)).toFixed(2)}x; ` +
    `the inspection's own cost (cached - floor): median ${(quantile(cached, 0.5) - quantile(posts, 0.5)).toFixed(2)} ms`);
} finally {
  await wrangler.stop();
  await origin.close();
}
for (let waited = 0; waited < 5_000 && workerd.some((p) => alive(p.pid)); waited += 100) await new Promise((r) => setTimeout(r, 100));
const left = workerd.filter((p) => alive(p.pid));
console.log(`wrangler (pid ${wrangler.pid}) stopped with SIGTERM; its workerd processes (${workerd.map((p) => p.pid).join(", ") || "none found"}) ` +
  (left.length === 0 ? "are gone" : `STILL RUNNING: ${left.map((p) => p.pid).join(", ")}`));
if (left.length > 0) process.exitCode = 1;

if (!values["skip-pipeline"]) {
  console.log("\n--- edge image pipeline, 12 MP JPEG (node bench/edge-image-pipeline.mjs --size 4000x3000) ---");
  const run = spawnSync(process.execPath, [join(root, "bench", "edge-image-pipeline.mjs"), "--size", "4000x3000"], { cwd: root, stdio: "inherit" });
  if (run.status !== 0) process.exitCode = 1;
}
