// The typed client (client/, hono/client over the Worker's AppType): it type-checks, a wrong field does not,
// and the shipped example runs against the real `npm start`. The service is stopped with SIGINT to the script.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { descendants, isAlive, startSamples, startService, type StartedService } from "../../testkit/start-service.ts";
import { waitFor } from "../../testkit/wait-for.ts";
import { checkedFiles, clientTypecheck } from "../../testkit/client-typecheck.ts";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
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
    // client/ and the misuses of /inspect beside it (testkit/client-typecheck.ts, one tsc run shared with the other
    // typed-client checks): the client's files have no error, the misuse the three below, and nothing else fails.
    const { output, errors, errorsIn } = await clientTypecheck();
    const misuse = errorsIn(checkedFiles.inspectMisuse);
    expect(misuse.length).toBeGreaterThan(0);
    const expected = new Set([...misuse, ...errorsIn(checkedFiles.routeMisuse), ...errorsIn(checkedFiles.commandApi)]);
    expect(errors.filter((line) => !expected.has(line)), output).toEqual([]);
    expect(misuse.join("\n")).toMatch(/"turbo"/);
    expect(misuse.join("\n")).toMatch(/link/);
    expect(misuse.join("\n")).toMatch(/nonexistent/);
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
