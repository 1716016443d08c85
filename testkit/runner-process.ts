import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { runnerBundle } from "../scripts/runner-bundle.mjs";

let compiled: Promise<string> | undefined;

/**
 * The media runner's server compiled as `npm start` runs it (scripts/runner-bundle.mjs), built once per process:
 * tests that start the runner as a process start this, not its TypeScript under tsx, which cost about 1.2 CPU-s
 * more per start.
 */
export function compiledRunner(): Promise<string> {
  compiled ??= runnerBundle(join(import.meta.dirname, ".."));
  return compiled;
}

/** Starts the real media runner (compiled, see compiledRunner) on a free loopback port. */
export async function startRunnerProcess(root: string, env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [await compiledRunner(), "--exit-on-stdin-close"], {
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
