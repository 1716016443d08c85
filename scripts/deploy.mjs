#!/usr/bin/env node
// `npm run deploy`: deploys the service to Cloudflare in one command (README "Deploy to Cloudflare").
//   1. checks what it needs and names everything missing at once: a logged-in wrangler, a Docker engine with
//      BuildKit (wrangler builds the runner image from media-runner/Dockerfile), the secrets RUNNER_TOKEN and
//      WEBHOOK_SECRET;
//   2. creates what `wrangler deploy` does not: the queue, its dead-letter queue and the R2 bucket named in
//      wrangler.toml (an existing one is fine);
//   3. runs `wrangler deploy`.
// `npm run deploy -- --dry-run` (CI runs it): `wrangler deploy --dry-run` of the production config with the
// container image given as a registry reference, so no Docker engine is needed; validates bindings,
// migrations and the bundle, and prints the bundle's size.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// public/vendor (the offline docs assets and the playground bundle) is uploaded with public/: made first.
await import("./copy-docs-assets.mjs");

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const config = readFileSync(join(root, "wrangler.toml"), "utf8");
const env = { ...process.env, WRANGLER_SEND_METRICS: "false" };
const say = (line) => process.stdout.write(`[deploy] ${line}\n`);

/** Values of `key = "value"` lines in wrangler.toml (our own file: one setting per line). */
function tomlValues(key) {
  return config.split("\n").map((line) => line.trim()).filter((line) => line.startsWith(`${key} = "`)).map((line) => line.slice(key.length + 4, line.indexOf('"', key.length + 4)));
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, env, encoding: "utf8", ...options });
  return { ok: result.status === 0, out: `${result.stdout ?? ""}${result.stderr ?? ""}`, missing: result.error?.code === "ENOENT" };
}

if (process.argv.includes("--dry-run")) {
  // The image build needs a Docker engine even for a dry run; a registry reference skips it.
  const dryConfig = join(root, ".wrangler-dry-run.toml");
  writeFileSync(dryConfig, config
    .replace(/^image = "\.\/media-runner\/Dockerfile"$/m, 'image = "registry.cloudflare.com/dry-run/media-runner:latest"')
    .replace(/^image_build_context = .*$/m, ""));
  const outdir = join(root, ".tmp", "dry-run");
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  try {
    const result = run(wrangler, ["deploy", "--dry-run", "-c", dryConfig, "--outdir", outdir]);
    process.stdout.write(result.out);
    if (!result.ok) {
      say("the dry run failed (above)");
      process.exit(1);
    }
    const size = /Total Upload: ([\d.]+ KiB) \/ gzip: ([\d.]+ KiB)/.exec(result.out);
    say(`dry run passed: bundle ${size ? `${size[1]}, ${size[2]} gzipped` : "(size not printed)"}; Cloudflare's limit is 10 MiB gzipped on the Paid plan`);
  } finally {
    rmSync(dryConfig, { force: true });
  }
  process.exit(0);
}

const problems = [];
const whoami = run(wrangler, ["whoami"]);
const loggedIn = whoami.ok && !/not authenticated|You are not logged in/i.test(whoami.out);
if (!loggedIn) {
  problems.push("wrangler is not logged in: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID)");
}
const docker = run("docker", ["info", "--format", "{{.ServerVersion}}"]);
if (docker.missing) problems.push("no `docker` command: install Docker (wrangler builds media-runner/Dockerfile with it)");
else if (!docker.ok) problems.push("the Docker engine is not running (`docker info` failed): start it; wrangler builds the runner image with it");
else if (!run("docker", ["buildx", "version"]).ok) problems.push("Docker has no BuildKit (`docker buildx version` failed): install the buildx plugin");
// The secrets are listed whatever else is missing, so one run names everything. Without a login they cannot be
// read from the account: each is named as unchecked, with the command that sets it.
const secretHints = { RUNNER_TOKEN: "openssl rand -hex 32", WEBHOOK_SECRET: `echo "whsec_$(openssl rand -base64 32)"` };
const setSecret = (name) => `\`${secretHints[name]} | npx wrangler secret put ${name}\``;
if (loggedIn) {
  const secrets = run(wrangler, ["secret", "list", "--format", "json"]);
  let names = [];
  try {
    names = secrets.ok ? (JSON.parse(secrets.out.slice(secrets.out.indexOf("["))) ?? []).map((s) => s.name) : [];
  } catch {
    names = [];
  }
  for (const name of Object.keys(secretHints)) if (!names.includes(name)) problems.push(`secret ${name} is not set: ${setSecret(name)}`);
} else {
  for (const name of Object.keys(secretHints)) problems.push(`secret ${name} cannot be checked before the login; once logged in, set it unless it is: ${setSecret(name)}`);
}
if (problems.length > 0) {
  say("not deploying; missing:");
  for (const problem of problems) say(`  - ${problem}`);
  process.exit(1);
}

// Created once; "already exists" is success.
const resources = [
  ...[...new Set([...tomlValues("queue"), ...tomlValues("dead_letter_queue")])].map((name) => ["queues", "create", name]),
  ...tomlValues("bucket_name").map((name) => ["r2", "bucket", "create", name]),
];
for (const args of resources) {
  const result = run(wrangler, args);
  if (result.ok) say(`created ${args.at(-1)}`);
  else if (/already exists|already taken|already own/i.test(result.out)) say(`${args.at(-1)} exists`);
  else {
    process.stdout.write(result.out);
    say(`could not create ${args.at(-1)} (above)`);
    process.exit(1);
  }
}
const deploy = spawnSync(wrangler, ["deploy"], { cwd: root, env, stdio: "inherit" });
process.exit(deploy.status ?? 1);
