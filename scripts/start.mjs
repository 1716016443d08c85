#!/usr/bin/env node
// `npm start`: the Worker (wrangler dev, local mode: no Cloudflare account) and the media runner together.
// Logs of both are streamed with a prefix; Ctrl-C / SIGTERM stops both and leaves no process behind.
// Worker settings (see worker/config.ts) given as environment variables are passed to the Worker as vars.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const port = process.env.PORT ?? "8787";
const host = process.env.HOST ?? "127.0.0.1";
const runnerPort = process.env.RUNNER_PORT ?? "8788";
const workerSettings = [
  "SSRF_ALLOWLIST", "DOH_RESOLVER_URL", "FETCH_TIMEOUT_MS", "MAX_SOURCE_BYTES", "MAX_REDIRECTS", "PROBE_HEAD_BYTES",
  "MAX_TAIL_BYTES", "RECORD_TTL_SECONDS", "ERROR_TTL_SECONDS", "THUMBNAIL_MAX_PX", "MAX_EDGE_IMAGE_BYTES",
  "MAX_DECODE_PIXELS", "RUNNER_URL", "RUNNER_TOKEN", "FULL_WAIT_TIMEOUT_MS", "WEBHOOK_SECRET", "OEMBED_BASE_URL",
  "RUNNER_DISPATCH", "DISPATCH_WATCHDOG_MS", "QUEUE_PICKUP_GRACE_MS", "CONSUMER_CONCURRENCY",
];

const children = [];
let stopping = false;

function prefixed(child, name) {
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => process.stdout.write(`[${name}] ${line}\n`));
  }
}

function stopAll(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  const force = setTimeout(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  }, 5000);
  force.unref();
  Promise.all(children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once("exit", r))))).then(() => process.exit(code));
}

process.on("SIGINT", () => stopAll(0));
process.on("SIGTERM", () => stopAll(0));

const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };
const runnerToken = process.env.RUNNER_TOKEN || randomBytes(24).toString("base64url");
let runnerUrl = process.env.RUNNER_URL;

const runnerEntry = join(root, "media-runner", "src", "server.ts");
const tsx = join(root, "media-runner", "node_modules", ".bin", "tsx");
if (!runnerUrl && existsSync(runnerEntry) && existsSync(tsx) && process.env.START_RUNNER !== "false") {
  runnerUrl = `http://127.0.0.1:${runnerPort}`;
  // The runner exits when its stdin closes, so it cannot outlive this script even on SIGKILL.
  const runner = spawn(tsx, [runnerEntry, "--exit-on-stdin-close"], {
    cwd: root,
    env: { ...env, RUNNER_PORT: runnerPort, RUNNER_HOST: "127.0.0.1", RUNNER_TOKEN: runnerToken },
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(runner);
  prefixed(runner, "runner");
  runner.on("exit", (code) => {
    if (!stopping) {
      process.stdout.write(`[start] media runner exited (${code}); stopping\n`);
      stopAll(1);
    }
  });
}

const vars = [];
for (const name of workerSettings) {
  const value = name === "RUNNER_URL" ? runnerUrl : name === "RUNNER_TOKEN" ? (runnerUrl ? runnerToken : undefined) : process.env[name];
  if (value) vars.push("--var", `${name}:${value}`);
}
vars.push("--var", "ENVIRONMENT:development");

const wrangler = spawn(
  join(root, "node_modules", ".bin", "wrangler"),
  ["dev", "--ip", host, "--port", port, "--show-interactive-dev-session=false", ...vars],
  { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] },
);
children.push(wrangler);
prefixed(wrangler, "worker");
wrangler.on("exit", (code) => {
  if (!stopping) {
    process.stdout.write(`[start] wrangler exited (${code}); stopping\n`);
    stopAll(code ?? 1);
  }
});
process.stdout.write(`[start] service on http://${host}:${port}${runnerUrl ? `, media runner on ${runnerUrl}` : ""}\n`);
