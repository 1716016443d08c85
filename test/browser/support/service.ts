import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { freePort } from "../../support/start-service.ts";

export { freePort };

export interface RunningService {
  base: string;
  logs: string[];
  stop(): Promise<void>;
}

/** `node scripts/start.mjs` (what `npm start` runs), ready once the Worker serves `/` and the runner is healthy. */
export async function startService(root: string, env: Record<string, string>, timeoutMs = 90_000): Promise<RunningService> {
  const port = await freePort();
  const runnerPort = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const logs: string[] = [];
  const child: ChildProcess = spawn(process.execPath, [join(root, "scripts", "start.mjs")], {
    cwd: root,
    env: { ...process.env, INSPECT_RATE_LIMIT: "0", PORT: String(port), RUNNER_PORT: String(runnerPort), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  createInterface({ input: child.stdout! }).on("line", (line) => logs.push(line));
  createInterface({ input: child.stderr! }).on("line", (line) => logs.push(line));
  const exited = new Promise<number | null>((r) => child.once("exit", r));

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + timeoutMs;
  const answers = async (url: string) => fetch(url).then((r) => r.status < 500, () => false);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`start.mjs exited (${child.exitCode}):\n${logs.join("\n")}`);
    if ((await answers(`${base}/`)) && (await answers(`http://127.0.0.1:${runnerPort}/v1/health`))) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`service not ready in ${timeoutMs} ms:\n${logs.join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return { base, logs, stop };
}
