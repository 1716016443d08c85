// npm start validates the Worker's settings with the Worker's own schema before starting anything.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");

async function startWith(env: Record<string, string>) {
  return run(process.execPath, [join(root, "scripts", "start.mjs")], { cwd: root, env: { ...process.env, PORT: "1", ...env }, timeout: 60_000 }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
}

describe("npm start refuses bad settings, naming them", () => {
  it.each([
    ["a WEBHOOK_SECRET that is not base64", { WEBHOOK_SECRET: "whsec_not base64" }, /WEBHOOK_SECRET: not base64/],
    ["a WEBHOOK_SECRET of 5 bytes", { WEBHOOK_SECRET: "whsec_" + Buffer.from("short").toString("base64") }, /WEBHOOK_SECRET: decodes to 5 bytes.*at least 24/],
    ["a non-numeric FETCH_TIMEOUT_MS", { FETCH_TIMEOUT_MS: "soon" }, /FETCH_TIMEOUT_MS/],
    ["an unknown CLIENT_IP_SOURCE", { CLIENT_IP_SOURCE: "edge" }, /CLIENT_IP_SOURCE/],
    ["a TRUSTED_PROXIES entry that is no address", { TRUSTED_PROXIES: "10.0.0.0/8,proxy.internal" }, /TRUSTED_PROXIES: not an address or CIDR: proxy\.internal/],
    ["a TRUSTED_PROXIES prefix too long", { TRUSTED_PROXIES: "10.0.0.0/33" }, /TRUSTED_PROXIES: not an address or CIDR: 10\.0\.0\.0\/33/],
  ])("%s", async (_name, env, message) => {
    const { code, out } = await startWith(env);
    expect(code).toBe(1);
    expect(out).toMatch(/refusing to start/);
    expect(out).toMatch(message);
    expect(out).not.toMatch(/wrangler/);
  }, 60_000);
});
