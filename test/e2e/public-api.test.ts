// Issue 11 over real HTTP: the real `npm start` (started through npm, as a user or a supervisor would), the
// samples server of the README, and plain fetch. CORS, client errors, request ids, Server-Timing, 202 headers,
// ETag/304, absolute poster URLs, JSON log lines, secrets kept out of argv, and a clean stop on SIGTERM to npm.
import { existsSync, statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { allCommandLines, descendants, freePort, isAlive, startSamples, startService, type StartedService } from "../../testkit/start-service.ts";
import { waitFor } from "../../testkit/wait-for.ts";

const runnerToken = "e2e-runner-token-" + "x".repeat(24);
const stackFrame = /\n?\s+at \S+ \(|\.(ts|js|mjs):\d+:\d+/;

let service: StartedService;
let samples: Awaited<ReturnType<typeof startSamples>>;
let receiverPort: number;
let receiver: ChildProcess | undefined;

beforeAll(async () => {
  samples = await startSamples();
  receiverPort = await freePort();
  service = await startService({
    via: "npm",
    // No SSRF_ALLOWLIST and no WEBHOOK_SECRET: local mode must allow-list the samples and receiver origins and
    // generate a secret.
    env: {
      SAMPLES_PORT: String(samples.port),
      RECEIVER_PORT: String(receiverPort),
      SSRF_ALLOWLIST: undefined,
      WEBHOOK_SECRET: undefined,
      RUNNER_TOKEN: runnerToken,
    },
  });
}, 240_000);

afterAll(async () => {
  receiver?.kill("SIGKILL");
  await service?.stop("SIGKILL");
  await samples?.stop();
});

const inspect = (body: unknown, query = "", headers: Record<string, string> = {}) =>
  fetch(`${service.base}/api/v1/inspect${query ? `?${query}` : ""}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

const logLineFor = (requestId: string) =>
  waitFor(() => service.jsonLines().find((l) => l.msg === "request" && l.requestId === requestId), { timeoutMs: 2_000, what: `a log line for ${requestId}` });

describe("npm start: readiness, local defaults", () => {
  it("prints one readiness line with the API, docs and playground URLs, which answer", async () => {
    expect(service.urls).toEqual({ api: `${service.base}/api/v1/inspect`, docs: `${service.base}/api-docs`, playground: `${service.base}/` });
    expect((await fetch(service.urls.docs)).status).toBe(200);
    expect(service.lines.filter((l) => l.startsWith("[start] ready:"))).toHaveLength(1);
  });

  it("generates a WEBHOOK_SECRET when unset, prints it once, and webhooks are accepted with it", async () => {
    const printed = service.lines.filter((l) => /WEBHOOK_SECRET=whsec_/.test(l));
    expect(printed).toHaveLength(1);
    const secret = /WEBHOOK_SECRET=(whsec_\S+)/.exec(printed[0]!)![1]!;
    expect(Buffer.from(secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
    const response = await inspect({ url: `${samples.url}/audio.flac`, webhookUrl: `${samples.url}/hook` }, "profile=fast");
    expect(response.status).toBe(200);
  });

  it("allow-lists the samples origin by default, so the README examples work as printed", async () => {
    const response = await inspect({ url: `${samples.url}/image.jpg` }, "profile=fast");
    const body: any = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.data.metadata.image).toMatchObject({ width: 1280, height: 720 });
  });
});

describe("README webhook receiver (client/webhook-receiver.mjs), run as printed with the printed secret", () => {
  it("receives and verifies the inspection.completed event", async () => {
    const secret = /WEBHOOK_SECRET=(whsec_\S+)/.exec(service.lines.join("\n"))![1]!;
    const root = join(import.meta.dirname, "..", "..");
    receiver = spawn(process.execPath, [join(root, "client", "webhook-receiver.mjs")], {
      cwd: root,
      env: { ...process.env, WEBHOOK_SECRET: secret, RECEIVER_PORT: String(receiverPort) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const printed: string[] = [];
    const next = (pattern: RegExp, ms: number) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver printed: ${printed.join("\n")}`)), ms);
        const check = () => {
          const hit = printed.find((l) => pattern.test(l));
          if (hit) {
            clearTimeout(timer);
            resolve(hit);
          } else setTimeout(check, 50);
        };
        check();
      });
    createInterface({ input: receiver.stdout! }).on("line", (l) => printed.push(l));
    receiver.stderr!.on("data", (d) => printed.push(String(d)));
    expect(await next(/webhook receiver on/, 15_000)).toBe(`webhook receiver on http://127.0.0.1:${receiverPort}/hook`);
    const url = `${samples.url}/video.webm?hook=${Date.now()}`;
    const response = await inspect({ url, webhookUrl: `http://127.0.0.1:${receiverPort}/hook` }, "profile=fast");
    expect(response.status).toBe(200);
    expect(await next(/^inspection\.completed/, 60_000)).toBe(`inspection.completed completed ${url} complete`);
    expect(printed.filter((l) => l.startsWith("rejected"))).toEqual([]);
  }, 90_000);
});

describe("CORS", () => {
  const origin = "http://page.test:5173";

  it("answers the preflight of POST /api/v1/inspect", async () => {
    const response = await fetch(service.urls.api, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type,x-request-id" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toContain("POST");
    expect(response.headers.get("access-control-allow-headers")).toMatch(/content-type/i);
    expect(Number(response.headers.get("access-control-max-age"))).toBeGreaterThan(0);
  });

  it("puts Access-Control-Allow-Origin on answers and errors and exposes the useful headers", async () => {
    for (const response of [
      await inspect({ url: `${samples.url}/image.png` }, "profile=fast", { origin }),
      await inspect("{", "", { origin }),
      await fetch(`${service.base}/api/v1/job/nope`, { headers: { origin } }),
    ]) {
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      const exposed = (response.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(",");
      for (const h of ["x-request-id", "server-timing", "location", "retry-after", "ratelimit", "etag", "cache-status", "age", "idempotent-replayed"]) expect(exposed).toContain(h);
    }
  });
});

describe("client errors: 4xx in the envelope, never 500, no stack trace in the log", () => {
  const json = JSON.stringify({ url: "http://127.0.0.1:1/x.mp4" });

  it.each([
    ["text/plain", { "content-type": "text/plain" }],
    ["curl -d's default (form-urlencoded)", { "content-type": "application/x-www-form-urlencoded" }],
  ])("a body sent as %s -> 415 naming application/json", async (_name, headers) => {
    const response = await fetch(service.urls.api, { method: "POST", headers, body: json });
    const body: any = await response.json();
    expect(response.status).toBe(415);
    expect(body).toMatchObject({ status: "error", error: { code: "UNSUPPORTED_MEDIA_TYPE" } });
    expect(body.error.message).toContain("application/json");
  });

  it("a body with no content type at all -> 415", async () => {
    const response = await fetch(service.urls.api, { method: "POST", body: new Blob([json]) });
    expect(response.status).toBe(415);
    expect(((await response.json()) as any).error.message).toContain("application/json");
  });

  it("malformed JSON -> 400 INVALID_PAYLOAD", async () => {
    const response = await inspect("{\"url\": ");
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.code).toBe("INVALID_PAYLOAD");
  });

  it("a body over 16 KiB -> 413 before parsing", async () => {
    const response = await inspect("[" + "1,".repeat(40_000) + "1]");
    const body: any = await response.json();
    expect(response.status).toBe(413);
    expect(body.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(body.error.message).toContain("16384");
  });

  it("none of these left a stack trace or a 500 in the service's output", async () => {
    // The service writes its lines in order: once a request made now is logged, every earlier line is in.
    const marker = await fetch(`${service.base}/health`);
    await logLineFor(marker.headers.get("x-request-id")!);
    const output = service.lines.join("\n");
    expect(output).not.toMatch(stackFrame);
    expect(service.jsonLines().filter((l) => l.msg === "request" && l.status >= 500)).toEqual([]);
  });
});

describe("request id, Server-Timing and the request log", () => {
  it("echoes a sane X-Request-Id and logs one JSON line with it", async () => {
    const id = `e2e_${Date.now()}-abc`;
    const response = await inspect({ url: `${samples.url}/audio.mp3?rid=${id}` }, "profile=fast", { "x-request-id": id });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe(id);
    const line = await logLineFor(id);
    expect(line).toMatchObject({
      msg: "request",
      method: "POST",
      route: "/api/v1/inspect",
      status: 200,
      profile: "fast",
      responseSource: "fresh",
      targetHost: `127.0.0.1:${samples.port}`,
    });
    expect(line.ms).toBeGreaterThanOrEqual(0);
    expect(line.bytesPulled).toBeGreaterThan(0);
    expect(typeof line.time).toBe("string");
  });

  it.each([["spaces and <html>", "bad id <x>"], ["too long", "a".repeat(65)]])("replaces an insane X-Request-Id (%s) by a generated one", async (_n, id) => {
    const response = await fetch(`${service.base}/api/v1/job/nope`, { headers: { "x-request-id": id } });
    const generated = response.headers.get("x-request-id")!;
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    expect((await logLineFor(generated)).status).toBe(404);
  });

  it("every response carries an id, even 404 and 405", async () => {
    for (const response of [await fetch(`${service.base}/nope`), await fetch(service.urls.api, { method: "PUT" })]) {
      expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("inspect answers carry Server-Timing with this request's total and the stage timings", async () => {
    const response = await inspect({ url: `${samples.url}/image.png` }, "profile=standard");
    expect(response.status).toBe(200);
    const timing = response.headers.get("server-timing")!;
    expect(timing).toMatch(/(^|,\s*)total;dur=\d/);
    expect(timing).toMatch(/stage-mediaFormat;dur=\d/);
    expect(timing).toMatch(/inspect;dur=\d/);
  });
});

describe("202, job, thumbnail caching, absolute URLs in HTML", () => {
  it("a 202 has an absolute Location to the job and Retry-After; the job completes with typed data and an absolute poster", async () => {
    const response = await inspect({ url: `${samples.url}/video.mp4?e2e=${Date.now()}` }, "profile=standard");
    const body: any = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(202);
    const location = response.headers.get("location")!;
    expect(location).toBe(`${service.base}/api/v1/job/${body.job.id}`);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await logLineFor(response.headers.get("x-request-id")!)).jobId).toBe(body.job.id);

    const job: any = await waitFor(async () => {
      const now: any = await (await fetch(location)).json();
      return (now.job.status === "completed" || now.job.status === "failed") && now;
    }, { timeoutMs: 30_000, intervalMs: 100, what: "the job finished" });
    expect(job.job.status).toBe("completed");
    const thumbnail = job.data.data.preview.thumbnail.url as string;
    expect(thumbnail).toMatch(/^\/api\/v1\/thumbnails\//);
    // HTML meant for other sites carries absolute URLs of this service.
    expect(job.data.data.playback.html).toContain(`poster="${service.base}${thumbnail}"`);
    const full: any = await (await inspect({ url: `${samples.url}/video.mp4?e2e=poster` }, "profile=full&expand=embedHtml")).json();
    expect(full.data.playback.html).toContain(`poster="${service.base}/api/v1/thumbnails/`);

    const first = await fetch(`${service.base}${thumbnail}`, { headers: { origin: "http://page.test" } });
    expect(first.status).toBe(200);
    expect(first.headers.get("access-control-allow-origin")).toBe("*");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect((await first.arrayBuffer()).byteLength).toBeGreaterThan(100);
    const again = await fetch(`${service.base}${thumbnail}`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    const weak = await fetch(`${service.base}${thumbnail}`, { headers: { "if-none-match": `"other", W/${etag}` } });
    expect(weak.status).toBe(304);
    const stale = await fetch(`${service.base}${thumbnail}`, { headers: { "if-none-match": '"stale"' } });
    expect(stale.status).toBe(200);
  });

  it("the runner logs one JSON line per job", async () => {
    const jobs = service.jsonLines().filter((l) => l.msg === "job" && l.job);
    expect(jobs.length).toBeGreaterThan(0);
    // The sample server's video (other tests of this file inspect videos on other origins, some failing on purpose).
    expect(jobs.find((l) => l.job.category === "video" && l.job.host === `127.0.0.1:${samples.port}`)?.job).toMatchObject({
      host: `127.0.0.1:${samples.port}`,
      outcome: "ok",
      stages: expect.arrayContaining(["thumbnail"]),
    });
    expect(typeof jobs[0]!.job.ms).toBe("number");
  });
});

describe("secrets and stopping", () => {
  it("no secret appears on any process command line; the Worker's settings file is mode 600", () => {
    const secret = /WEBHOOK_SECRET=(whsec_\S+)/.exec(service.lines.join("\n"))![1]!;
    const lines = [...allCommandLines().values()];
    expect(lines.some((l) => l.includes("wrangler") && l.includes("dev"))).toBe(true);
    expect(lines.filter((l) => l.includes(secret) || l.includes(secret.slice(6)))).toEqual([]);
    expect(lines.filter((l) => l.includes(runnerToken))).toEqual([]);
    // This service's own settings file: other test files run services of their own at the same time.
    const own = descendants(service.child.pid!).map((pid) => allCommandLines().get(pid) ?? "");
    const envFile = /--env-file (\S+)/.exec(own.find((l) => l.includes("--env-file"))!)![1]!;
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
  });

  it("SIGTERM to the npm process stops wrangler, workerd and the runner, and removes the settings file", async () => {
    const tree = descendants(service.child.pid!);
    const names = tree.map((pid) => allCommandLines().get(pid) ?? "");
    // This service's own settings file: other test files run services of their own at the same time.
    const envFile = /--env-file (\S+)/.exec(names.find((l) => l.includes("--env-file"))!)![1]!;
    expect(names.some((n) => n.includes("workerd serve"))).toBe(true);
    expect(names.some((n) => n.includes("wrangler"))).toBe(true);
    expect(names.some((n) => n.includes("media-runner/.build/") && n.includes("server.js --exit-on-stdin-close"))).toBe(true);
    const code = await service.stop("SIGTERM");
    expect(code === 0 || code === null).toBe(true);
    const left = await waitFor(() => tree.filter(isAlive).length === 0, { timeoutMs: 10_000, what: "every process gone" })
      .then(() => [], () => tree.filter(isAlive));
    expect(left.map((pid) => allCommandLines().get(pid))).toEqual([]);
    expect(await fetch(`http://127.0.0.1:${service.runnerPort}/v1/health`).then(() => true, () => false)).toBe(false);
    expect(await fetch(service.base).then(() => true, () => false)).toBe(false);
    expect(existsSync(envFile)).toBe(false);
  }, 60_000);
});
