// `wrangler dev` alone (no media runner), for benches that measure the Worker's edge path.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

const root = join(import.meta.dirname, "..", "..");
const wranglerReadyTimeoutMs = 60_000;

/** Starts `wrangler dev` on `port` (state in `persistDir`) and resolves once it answers /health. */
export async function startWorker(port: number, vars: Record<string, string>, persistDir: string): Promise<ChildProcess> {
  // The wrangler binary itself (not npx) so SIGTERM reaches the process that owns workerd.
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", persistDir, "--log-level", "warn"];
  // wrangler.toml says production, where an SSRF allow-list is refused: benches are local development.
  for (const [name, value] of Object.entries({ ENVIRONMENT: "development", ...vars })) args.push("--var", `${name}:${value}`);
  const child = spawn(join(root, "node_modules", ".bin", "wrangler"), args, {
    cwd: root,
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on("line", (l) => log.push(l));
  const deadline = Date.now() + wranglerReadyTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${log.join("\n")}`);
    if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)) return child;
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill("SIGTERM");
  throw new Error(`wrangler dev did not answer within ${wranglerReadyTimeoutMs} ms:\n${log.join("\n")}`);
}

export async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}
