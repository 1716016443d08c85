// `npm run deploy` with no Cloudflare account, no Docker engine and no secrets: one run names every missing
// prerequisite (the login, the engine, both secrets), deploys nothing and exits 1. Run inside the loopback-only
// namespace of the tests: wrangler cannot reach Cloudflare, as on a machine that was never logged in.
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
const home = mkdtempSync(join(tmpdir(), "deploy-preflight-"));

afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("npm run deploy without an account", () => {
  it("names the login, the Docker engine and both secrets at once, and deploys nothing", async () => {
    // A `docker` whose engine is not running, whatever this machine has.
    const bin = join(home, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "docker"), "#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n");
    chmodSync(join(bin, "docker"), 0o755);
    const env: Record<string, string> = { PATH: `${bin}:${process.env.PATH}`, HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    const result = await run(process.execPath, [join(root, "scripts", "deploy.mjs")], { cwd: root, env, timeout: 120_000 })
      .then((r) => ({ code: 0, out: r.stdout + r.stderr }), (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }));
    expect(result.code, result.out).toBe(1);
    const missing = result.out.split("\n").filter((line) => line.startsWith("[deploy]   - "));
    expect(missing, result.out).toHaveLength(4);
    expect(missing[0]).toMatch(/wrangler is not logged in: run `npx wrangler login`/);
    expect(missing[1]).toMatch(/Docker engine is not running/);
    expect(missing[2]).toMatch(/secret RUNNER_TOKEN .*npx wrangler secret put RUNNER_TOKEN/);
    expect(missing[3]).toMatch(/secret WEBHOOK_SECRET .*npx wrangler secret put WEBHOOK_SECRET/);
    // Nothing was created or deployed.
    expect(result.out).not.toMatch(/created |Uploaded|Deployed/);
  }, 150_000);
});
