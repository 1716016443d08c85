/**
 * Starts the real service the way a user does, `node scripts/start.mjs` (wrangler dev + the media runner),
 * on free loopback ports with the bench origin allow-listed, and stops it with SIGTERM (start.mjs stops both
 * children). Extra environment (e.g. PROBE_HEAD_BYTES) is passed through as Worker settings.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";

const readyTimeoutMs = 90_000;

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

export interface Service {
  base: string;
  child: ChildProcess;
  log: string[];
  stop(): Promise<void>;
}

export async function startService(root: string, env: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const runnerPort = await freePort();
  const child = spawn(process.execPath, [join(root, "scripts", "start.mjs")], {
    cwd: root,
    env: { ...process.env, PORT: String(port), RUNNER_PORT: String(runnerPort), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => {
      log.push(line);
      if (log.length > 400) log.shift();
    });
  }
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  };
  const deadline = Date.now() + readyTimeoutMs;
  let runnerUp = false;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`start.mjs exited (${child.exitCode}):\n${log.join("\n")}`);
    runnerUp ||= log.some((l) => l.includes("[runner]") && /listening/i.test(l));
    const ok = await fetch(`${base}/health`).then((r) => r.ok, () => false);
    if (ok && runnerUp) return { base, child, log, stop };
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`the service did not answer within ${readyTimeoutMs} ms:\n${log.join("\n")}`);
}
