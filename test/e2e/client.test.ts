// The typed client (client/, hono/client over the Worker's AppType): it type-checks, a wrong field does not,
// and the shipped example runs against the real `npm start`. The service is stopped with SIGINT to the script.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { descendants, isAlive, startSamples, startService, type StartedService } from "../../testkit/start-service.ts";
import { waitFor } from "../../testkit/wait-for.ts";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
const tsc = join(root, "node_modules", ".bin", "tsc");
const tsx = join(root, "node_modules", ".bin", "tsx");

let service: StartedService;
let samples: Awaited<ReturnType<typeof startSamples>>;

beforeAll(async () => {
  samples = await startSamples();
  service = await startService({ env: { SSRF_ALLOWLIST: `127.0.0.1:${samples.port}` } });
}, 240_000);

afterAll(async () => {
  await service?.stop("SIGKILL");
  await samples?.stop();
});

describe("typed client (client/)", () => {
  it("type-checks, and a misuse of the API's types does not", async () => {
    // One tsc run over the client and the misuse beside it (each run type-checks the whole Worker app behind
    // AppType): the client's files must have no error, the misuse the three below.
    const dir = mkdtempSync(join(root, "client", "typecheck-"));
    try {
      writeFileSync(
        join(dir, "misuse.ts"),
        `import { createClient } from "../index.ts";
const api = createClient("http://127.0.0.1:1");
// profile is an enum and the body needs url: both are compile errors.
await api.api.v1.inspect.$post({ query: { profile: "turbo" }, json: { link: "x" } });
const res = await api.api.v1.inspect.$post({ query: {}, json: { url: "x" } });
if (res.status === 200) { const body = await res.json(); if ("processing" in body) body.processing.nonexistent.toFixed(); }
`,
      );
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: "../tsconfig.json", include: ["..", "../../worker-configuration.d.ts"], exclude: [] }));
      const failed = await run(tsc, ["--noEmit", "-p", join(dir, "tsconfig.json")], { cwd: root }).then(() => null, (e: { stdout: string }) => e.stdout);
      const misuse = relative(root, join(dir, "misuse.ts"));
      const errorLines = (failed ?? "").split("\n").filter((line) => /error TS\d+/.test(line));
      expect(errorLines.length).toBeGreaterThan(0);
      expect(errorLines.filter((line) => !line.startsWith(`${misuse}(`))).toEqual([]);
      expect(failed).toMatch(/"turbo"/);
      expect(failed).toMatch(/link/);
      expect(failed).toMatch(/nonexistent/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it("the example inspects a video, follows its job and prints the completed facts", async () => {
    const { stdout } = await run(tsx, [join(root, "client", "example.ts"), service.base, `${samples.url}/video.mp4?client=${Date.now()}`], {
      cwd: root,
      timeout: 90_000,
    });
    const [first, last] = stdout.trim().split("\n");
    expect(first).toBe("202 video video/mp4 partial");
    expect(last).toMatch(/^complete=true duration=5 fps=25 thumbnail=\/api\/v1\/thumbnails\/[0-9a-f]{64}-[0-9a-f]{16}-320x180\.webp$/);
  }, 120_000);
});

describe("npm start stops on SIGINT to the script", () => {
  it("exits 0 and leaves none of its processes behind", async () => {
    const tree = descendants(service.child.pid!);
    expect(tree.length).toBeGreaterThanOrEqual(3);
    expect(await service.stop("SIGINT")).toBe(0);
    await waitFor(() => tree.filter(isAlive).length === 0, { timeoutMs: 10_000, what: "every process gone" }).catch(() => undefined);
    expect(tree.filter(isAlive)).toEqual([]);
  }, 60_000);
});
