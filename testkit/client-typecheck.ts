/**
 * The typed clients' type checks in one `tsc` run. Each check type-checks the whole Worker app behind AppType (about
 * 16 CPU-seconds), and three test files ask for one: test/unit/typed-client.test.ts (every route, misuses of /oembed
 * and /v), test/e2e/client.test.ts (client/ itself, misuses of /inspect) and test/e2e/mcp-and-command.test.ts (the
 * command's JSDoc calls, one wrong body field). One program holds all their files; the first file to ask runs it,
 * the others wait for it (a lock folder, since the files run in different processes) and read the same output, which
 * is kept under test/.fixtures keyed by a digest of everything tsc reads, so an unchanged tree is not checked again.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { waitFor } from "./wait-for.ts";

const root = join(import.meta.dirname, "..");
const tsc = join(root, "node_modules", ".bin", "tsc");
const cacheDir = join(root, "test", ".fixtures", "client-typecheck");
/** Longer than one tsc run on two busy cores. */
const runTimeoutMs = 300_000;

/** A script calling every route with typed answers: it must compile without an error. */
const calls = `import { createClient, type OembedDocument } from "../index.ts";

const api = createClient("http://127.0.0.1:8787");
const url = "https://cdn.example/clip.mp4";

const posted = await api.api.v1.inspect.$post({ query: { profile: "fast", maxAge: "0" }, json: { url } });
if (posted.status === 200) { const body = await posted.json(); if ("processing" in body) body.processing.completedStages.join(); }
const got = await api.api.v1.inspect.$get({ query: { url, profile: "standard" } });
if (got.status === 202) (await got.json()).job?.id.trim();
const batch = await api.api.v1.inspect.batch.$post({ query: { profile: "fast" }, json: { urls: [url] } }, { headers: { "Idempotency-Key": "k" } });
if (batch.status === 200) (await batch.json()).results.length.toFixed();
const job = await api.api.v1.job[":id"].$get({ param: { id: "j" } });
if (job.status === 200) (await job.json()).job.status.trim();
const thumb = await api.api.v1.thumbnails[":file"].$get({ param: { file: "a.webp" }, header: {} });
thumb.status.toFixed();
const vtt = await api.api.v1.storyboards[":file"].$get({ param: { file: "a.vtt" }, header: {} });
vtt.status.toFixed();
const oembed = await api.oembed.$get({ query: { url, maxwidth: "320" } });
if (oembed.status === 200) { const doc: OembedDocument = await oembed.json(); doc.version.trim(); if (doc.type === "video") doc.html.trim(); }
const share = await api.v.$get({ query: { url } });
(await share.text()).trim();
const shareLink: string = api.v.$url({ query: { url } }).href;
const health = await api.health.$get();
(await health.json()).status satisfies "ok";
const problem = await api.problems[":name"].$get({ param: { name: "rate-limited" } });
problem.status.toFixed();
export { shareLink };
`;

/** Misuses of /oembed and /v: lines 3, 4 and 6 must each be refused. */
const routeMisuse = `import { createClient } from "../index.ts";
const api = createClient("http://127.0.0.1:8787");
await api.oembed.$get({ query: { link: "x" } });
await api.v.$get({ query: {} });
const doc = await (await api.oembed.$get({ query: { url: "x" } })).json();
if (doc.type === "photo") doc.html.trim();
`;

/** Misuses of /inspect: an unknown profile, a body without url, a field the answer does not have. */
const inspectMisuse = `import { createClient } from "../index.ts";
const api = createClient("http://127.0.0.1:1");
// profile is an enum and the body needs url: both are compile errors.
await api.api.v1.inspect.$post({ query: { profile: "turbo" }, json: { link: "x" } });
const res = await api.api.v1.inspect.$post({ query: {}, json: { url: "x" } });
if (res.status === 200) { const body = await res.json(); if ("processing" in body) body.processing.nonexistent.toFixed(); }
`;

/** The command's one call changed in the copy: its body names `link` instead of `url`. */
export const commandCallAsShipped = "json: { url } }";
const commandCallChanged = "json: { link: url } }";

/** The files of the one program, by role (names inside its folder). */
export const checkedFiles = {
  calls: "calls.ts",
  routeMisuse: "route-misuse.ts",
  inspectMisuse: "inspect-misuse.ts",
  /** The command's files are copied as they are, but for api.mjs. */
  commandApi: "api.mjs",
} as const;

export interface ClientTypecheck {
  /** tsc's whole output. */
  output: string;
  /** The folder the program's own files were in, relative to the repository root (as tsc names them). */
  folder: string;
  /** tsc's error lines. */
  errors: string[];
  /** The error lines about one file of the folder. */
  errorsIn(name: string): string[];
}

/** The one tsc run's output: run now, waited for, or read from the cache. */
export async function clientTypecheck(): Promise<ClientTypecheck> {
  mkdirSync(cacheDir, { recursive: true });
  const key = digest();
  const outputFile = join(cacheDir, `${key}.json`);
  const lock = join(cacheDir, `${key}.lock`);
  for (;;) {
    if (existsSync(outputFile)) return reading(JSON.parse(readFileSync(outputFile, "utf8")) as { output: string; folder: string });
    try {
      mkdirSync(lock);
    } catch {
      // Another test file is running it: wait until its output is there or its lock is gone (it stopped).
      await waitFor(() => existsSync(outputFile) || !existsSync(lock) || !lockHolderAlive(lock), { timeoutMs: runTimeoutMs, intervalMs: 200, what: "the shared client type check" });
      if (!existsSync(outputFile) && existsSync(lock) && !lockHolderAlive(lock)) rmSync(lock, { recursive: true, force: true });
      continue;
    }
    try {
      writeFileSync(join(lock, "pid"), String(process.pid));
      const result = await runOnce(key);
      writeFileSync(`${outputFile}.partial`, JSON.stringify(result));
      renameSync(`${outputFile}.partial`, outputFile);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

function lockHolderAlive(lock: string): boolean {
  try {
    process.kill(Number(readFileSync(join(lock, "pid"), "utf8")), 0);
    return true;
  } catch (error) {
    // No pid yet (the holder is writing it) counts as alive; a pid with no process does not.
    return (error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function runOnce(key: string): Promise<{ output: string; folder: string }> {
  const folder = join("client", `typecheck-${key.slice(0, 12)}`);
  const dir = join(root, folder);
  rmSync(dir, { recursive: true, force: true });
  cpSync(join(root, "client", "cli"), dir, { recursive: true });
  try {
    const api = join(dir, checkedFiles.commandApi);
    const source = readFileSync(api, "utf8");
    if (!source.includes(commandCallAsShipped)) throw new Error(`client/cli/api.mjs no longer has the call ${commandCallAsShipped}`);
    writeFileSync(api, source.replace(commandCallAsShipped, commandCallChanged));
    writeFileSync(join(dir, checkedFiles.calls), calls);
    writeFileSync(join(dir, checkedFiles.routeMisuse), routeMisuse);
    writeFileSync(join(dir, checkedFiles.inspectMisuse), inspectMisuse);
    // client/tsconfig.json's settings (the command's JSDoc is checked too).
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
      extends: "../tsconfig.json",
      include: [".", "../index.ts", "../example.ts", "../../worker-configuration.d.ts"],
      exclude: [],
    }));
    const output = await promisify(execFile)(tsc, ["--noEmit", "-p", join(dir, "tsconfig.json")], { cwd: root, timeout: runTimeoutMs })
      .then(() => "", (e: { stdout?: string; message: string }) => e.stdout || e.message);
    return { output, folder };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function reading({ output, folder }: { output: string; folder: string }): ClientTypecheck {
  const errors = output.split("\n").filter((line) => /error TS\d+/.test(line));
  return { output, folder, errors, errorsIn: (name) => errors.filter((line) => line.startsWith(`${join(folder, name)}(`)) };
}

/** SHA-256 of everything the program reads from this repository, of this module and of the TypeScript version. */
function digest(): string {
  const hash = createHash("sha256").update(readFileSync(import.meta.filename));
  hash.update(readFileSync(join(root, "node_modules", "typescript", "package.json")));
  for (const file of ["tsconfig.json", "worker-configuration.d.ts", "client/tsconfig.json"]) hash.update(file).update(readFileSync(join(root, file)));
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith("typecheck-") || name === "node_modules") continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs|js|json)$/.test(name)) hash.update(path.slice(root.length)).update(readFileSync(path));
    }
  };
  for (const dir of ["client", "worker", "shared"]) walk(join(root, dir));
  return hash.digest("hex");
}
