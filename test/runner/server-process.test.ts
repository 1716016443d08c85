/** The runner as a process: `npm run runner`'s entry point, its start line, shutdown and refusal to start. */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { RunnerHealth } from "../../shared/shapes/runner.ts";
import { testToken } from "../../testkit/runner/harness.ts";
import { compiledRunner } from "../../testkit/runner-process.ts";

const runnerDir = new URL("../../media-runner/", import.meta.url).pathname;

async function startRunner(env: Record<string, string>, args: string[] = []): Promise<ChildProcess> {
  return spawn(process.execPath, [await compiledRunner(), ...args], {
    cwd: runnerDir,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

async function addressLine(child: ChildProcess): Promise<string> {
  for await (const line of createInterface({ input: child.stdout! })) {
    const match = /listening on (http:\/\/\S+)/.exec(line);
    if (match) return match[1]!;
  }
  throw new Error("runner exited without printing its address");
}

describe("runner process", () => {
  it("prints its address, serves health, and exits 0 on SIGTERM", async () => {
    const child = await startRunner({ RUNNER_TOKEN: testToken, RUNNER_PORT: "0" });
    const url = await addressLine(child);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = RunnerHealth.parse(await (await fetch(`${url}/v1/health`)).json());
    expect(health.status).toBe("ok");
    const unauthorized = await fetch(`${url}/v1/process`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(unauthorized.status).toBe(401);
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("exits when its stdin closes if started with --exit-on-stdin-close", async () => {
    const child = await startRunner({ RUNNER_TOKEN: testToken, RUNNER_PORT: "0" }, ["--exit-on-stdin-close"]);
    await addressLine(child);
    child.stdin!.end();
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("refuses to start without RUNNER_TOKEN, naming the variable", async () => {
    const child = await startRunner({ RUNNER_PORT: "0" });
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    const [code] = await once(child, "exit");
    expect(code).toBe(1);
    expect(stderr).toContain("RUNNER_TOKEN");
  });

  it("refuses a malformed SSRF_ALLOWLIST, naming the variable", async () => {
    const child = await startRunner({ RUNNER_TOKEN: testToken, RUNNER_PORT: "0", SSRF_ALLOWLIST: "not-an-ip" });
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    const [code] = await once(child, "exit");
    expect(code).toBe(1);
    expect(stderr).toContain("SSRF_ALLOWLIST");
  });
});
