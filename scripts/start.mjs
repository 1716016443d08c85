#!/usr/bin/env node
// `npm start`: the Worker (wrangler dev, local mode: no Cloudflare account) and the media runner together.
//
// - Every Worker setting of worker/config/config.ts (the keys of its ConfigSchema) given as an environment variable is
//   validated here with that schema, then handed to wrangler in a mode-600 env file (`--env-file`), never as
//   `--var` arguments: argv is readable by every local user (`ps`, /proc/*/cmdline). The runner gets its token
//   through its environment.
// - Local mode only: a WEBHOOK_SECRET is generated (and printed once) when unset, and SSRF_ALLOWLIST defaults to
//   the origins of `npm run samples` and client/webhook-receiver.mjs so the README's examples work as printed. Production never runs this script.
// - SIGTERM/SIGINT (to this script or to `npm`, which forwards it) stop both children, waiting up to
//   STOP_TIMEOUT_MS for the runner's in-flight jobs, then SIGKILL. One readiness line names the URLs.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { tsImport } from "tsx/esm/api";
import { runnerBundle } from "./runner-bundle.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const port = process.env.PORT ?? "8787";
const host = process.env.HOST ?? "127.0.0.1";
const runnerPort = process.env.RUNNER_PORT ?? "8788";
const samplesPort = process.env.SAMPLES_PORT ?? "8790";
const receiverPort = process.env.RECEIVER_PORT ?? "8791";
/** How long children get to finish (the runner completes in-flight jobs) before SIGKILL. */
// Longer than the runner's own RUNNER_SHUTDOWN_GRACE_MS (8 s) plus its 3 s hard-exit margin, so it can hand jobs back first.
const stopTimeoutMs = Number(process.env.STOP_TIMEOUT_MS ?? 15_000);
// Where the local Durable Objects, R2 and cache keep their data (wrangler's default: .wrangler/state). Two services
// running at once need one each: workerd owns its objects' SQLite files, and a second process writing the same
// files (or running the alarms the first one set) breaks objects mid-call.
const stateDir = process.env.LOCAL_STATE_DIR;
// wrangler dev's devtools port (default: the first free from 9229, which two starts at once both take).
const inspectorPort = process.env.INSPECTOR_PORT;

const children = [];
let stopping = false;
let envDir;

const say = (line) => process.stdout.write(`[start] ${line}\n`);

/** Worker JSON log lines pass through untouched (so `npm start | jq` works); other lines get a prefix. */
function forward(child, name) {
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => {
      process.stdout.write(line.startsWith("{") ? `${line}\n` : `[${name}] ${line}\n`);
    });
  }
}

function cleanUp() {
  if (envDir) rmSync(envDir, { recursive: true, force: true });
  envDir = undefined;
}

function stopAll(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  const force = setTimeout(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }, stopTimeoutMs);
  force.unref();
  const exited = (c) => (c.exitCode !== null || c.signalCode !== null ? null : new Promise((r) => c.once("exit", r)));
  Promise.all(children.map(exited)).then(() => {
    cleanUp();
    process.exit(code);
  });
}

process.on("SIGINT", () => stopAll(0));
process.on("SIGTERM", () => stopAll(0));
process.on("SIGHUP", () => stopAll(0));
process.on("exit", cleanUp);

// npm does not always pass a SIGTERM on to the script (it may simply die), so the script also stops when its
// parent goes away: it is then re-parented, and its parent pid changes.
const parentPid = process.ppid;
const parentWatch = setInterval(() => {
  if (process.ppid !== parentPid) stopAll(0);
}, 250);
parentWatch.unref();

// The settings are the keys of the Worker's own schema, so a new setting is passed on without editing this file.
const { ConfigSchema, getConfig } = await tsImport("../worker/config/config.ts", import.meta.url);
const settingNames = Object.keys(ConfigSchema.shape);

const settings = {};
for (const name of settingNames) if (process.env[name]) settings[name] = process.env[name];
// Local mode only: the README's sample server and webhook receiver (both loopback) are reachable by default.
if (!settings.SSRF_ALLOWLIST) settings.SSRF_ALLOWLIST = `127.0.0.1:${samplesPort},127.0.0.1:${receiverPort}`;
// wrangler.toml's CLIENT_IP_SOURCE (cloudflare) holds only behind Cloudflare's edge: wrangler dev keeps whatever
// CF-Connecting-IP a client sends, so locally no caller is identified unless the operator says otherwise.
if (!settings.CLIENT_IP_SOURCE) settings.CLIENT_IP_SOURCE = "none";
if (!settings.WEBHOOK_SECRET) {
  settings.WEBHOOK_SECRET = `whsec_${randomBytes(32).toString("base64")}`;
  say(`WEBHOOK_SECRET was unset; generated for this run (webhook receivers verify with it):`);
  say(`WEBHOOK_SECRET=${settings.WEBHOOK_SECRET}`);
}

const runnerToken = settings.RUNNER_TOKEN || randomBytes(24).toString("base64url");
const runnerSources = join(root, "media-runner", "src", "server.ts");
const startRunner = !settings.RUNNER_URL && existsSync(runnerSources) && existsSync(join(root, "media-runner", "node_modules"))
  && process.env.START_RUNNER !== "false";
// RUNNER_INSTANCES runners on consecutive ports from RUNNER_PORT (default 1 locally); the Worker spreads jobs
// over them and fails over between them (worker/runner/runner-pool.ts).
const runnerCount = startRunner ? Math.max(1, Math.min(8, Number(process.env.RUNNER_INSTANCES ?? 1) || 1)) : 0;
const runnerPorts = Array.from({ length: runnerCount }, (_, i) => String(Number(runnerPort) + i));
if (startRunner) {
  settings.RUNNER_URL = `http://127.0.0.1:${runnerPorts[0]}`;
  if (runnerCount > 1) settings.RUNNER_URLS = runnerPorts.map((p) => `http://127.0.0.1:${p}`).join(",");
  settings.RUNNER_TOKEN = runnerToken;
}

try {
  getConfig(settings);
} catch (error) {
  say(`refusing to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

/**
 * dotenv syntax: single quotes keep the value literal (no `#` comments, no escapes). A value of several lines
 * (C2PA_TRUST_ANCHORS' PEM) goes in double quotes, where dotenv turns `\n` back into a newline.
 */
function envLine(name, value) {
  if (/\n/.test(value) && !/["\\\r]/.test(value)) return `${name}="${value.replace(/\n/g, "\\n")}"\n`;
  if (/[\r\n']/.test(value)) throw new Error(`${name} cannot contain a newline or a single quote`);
  return `${name}='${value}'\n`;
}
envDir = mkdtempSync(join(tmpdir(), "media-inspect-"));
const envFile = join(envDir, "worker.env");
let envText = envLine("ENVIRONMENT", "development");
for (const [name, value] of Object.entries(settings)) envText += envLine(name, value);
writeFileSync(envFile, envText, { mode: 0o600 });

const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };
const ready = { worker: false, ...Object.fromEntries(Array.from({ length: runnerCount }, (_, i) => [`runner${i}`, false])) };
const base = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
function markReady(which) {
  if (ready[which]) return;
  ready[which] = true;
  if (Object.values(ready).every(Boolean)) {
    say(`ready: API ${base}/api/v1/inspect  docs ${base}/api-docs  playground ${base}/`);
  }
}

/** Restarts of one runner within a minute before the script gives up and stops (a crash loop). */
const maxRunnerRestartsPerMinute = 5;

function spawnRunner(index, restarts = []) {
  const name = runnerCount > 1 ? `runner-${index + 1}` : "runner";
  // The runner exits when its stdin closes, so it cannot outlive this script even on SIGKILL.
  const runner = spawn(process.execPath, [runnerEntry, "--exit-on-stdin-close"], {
    cwd: root,
    // info: the runner writes one JSON line per job (its default, warn, keeps only problems).
    // The runner fetches the same origins as the Worker, so it gets the same allow-list (local default included).
    env: { RUNNER_LOG_LEVEL: "info", ...env, SSRF_ALLOWLIST: settings.SSRF_ALLOWLIST, RUNNER_PORT: runnerPorts[index], RUNNER_HOST: "127.0.0.1", RUNNER_TOKEN: runnerToken },
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(runner);
  forward(runner, name);
  createInterface({ input: runner.stdout }).on("line", (line) => {
    if (line.includes("media-runner listening")) markReady(`runner${index}`);
  });
  runner.on("exit", (code, signal) => {
    if (stopping) return;
    children.splice(children.indexOf(runner), 1);
    // One runner of several: the others carry on (the Worker fails over) while this one is started again.
    const now = Date.now();
    const recent = [...restarts.filter((t) => now - t < 60_000), now];
    if (runnerCount > 1 && recent.length <= maxRunnerRestartsPerMinute) {
      say(`${name} exited (${code ?? signal}); starting it again`);
      setTimeout(() => stopping || spawnRunner(index, recent), 500);
      return;
    }
    say(`media runner exited (${code ?? signal}); stopping`);
    stopAll(1);
  });
}
// The runner compiled (scripts/runner-bundle.mjs) and public/vendor made (offline docs assets, the playground bundle)
// before anything serves them. public/vendor here rather than as wrangler.toml's [build] command, which wrangler dev
// runs again once its watcher is ready and then reloads the Worker.
const [runnerEntry] = await Promise.all([startRunner ? runnerBundle(root) : undefined, import("./copy-docs-assets.mjs")])
  .catch((error) => {
    // esbuild has printed where the sources do not compile.
    say(`refusing to start: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
    process.exit(1);
  });
for (let i = 0; i < runnerCount; i++) spawnRunner(i);

const wrangler = spawn(
  join(root, "node_modules", ".bin", "wrangler"),
  [
    "dev", "--ip", host, "--port", port, "--show-interactive-dev-session=false", "--env-file", envFile,
    ...(stateDir ? ["--persist-to", stateDir] : []),
    ...(inspectorPort ? ["--inspector-port", inspectorPort] : []),
  ],
  { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] },
);
children.push(wrangler);
forward(wrangler, "worker");
createInterface({ input: wrangler.stdout }).on("line", (line) => {
  if (line.includes("Ready on")) markReady("worker");
});
wrangler.on("exit", (code) => {
  if (!stopping) {
    say(`wrangler exited (${code}); stopping`);
    stopAll(code ?? 1);
  }
});
say(`starting the Worker on ${base}${startRunner ? ` and the media runner on ${runnerPorts.map((p) => `http://127.0.0.1:${p}`).join(", ")}` : ""}`);
