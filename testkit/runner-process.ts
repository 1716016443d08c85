import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** Starts the real media runner (tsx media-runner/src/server.ts) on a free loopback port. */
export async function startRunnerProcess(root: string, env: Record<string, string>) {
  const tsx = join(root, "media-runner", "node_modules", ".bin", "tsx");
  const child: ChildProcess = spawn(tsx, [join(root, "media-runner", "src", "server.ts"), "--exit-on-stdin-close"], {
    cwd: root,
    env: { ...process.env, RUNNER_PORT: "0", RUNNER_HOST: "127.0.0.1", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("media runner did not start within 30 s")), 30_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      const match = line.match(/listening on (http:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr!.on("data", (d) => process.stderr.write(`[runner] ${d}`));
    child.once("exit", (code) => reject(new Error(`media runner exited early (${code})`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const force = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(force);
    },
  };
}
