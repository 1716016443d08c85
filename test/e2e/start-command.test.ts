import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureMediaFixtures } from "../../testkit/media-fixtures.ts";
import { startLoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { startService, type StartedService } from "../../testkit/start-service.ts";
import { waitFor } from "../../testkit/wait-for.ts";

// The README's own start command (`npm start` = scripts/start.mjs: wrangler dev + media runner), driven over
// real HTTP as a user would, against a loopback origin. Then SIGTERM must stop everything it started.
const root = join(import.meta.dirname, "..", "..");

function processesMentioning(text: string): string[] {
  try {
    return execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.includes(text) && !line.includes("ps -eo"));
  } catch {
    return [];
  }
}

describe("npm start (wrangler dev + media runner)", () => {
  let origin: Awaited<ReturnType<typeof startLoopbackOrigin>>;
  let service: StartedService;
  let base: string;

  beforeAll(async () => {
    origin = await startLoopbackOrigin([ensureMediaFixtures(join(root, "test", ".fixtures", "media")), join(root, "test", "fixtures", "images")]);
    service = await startService({
      env: {
        SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`,
        WEBHOOK_SECRET: "whsec_" + Buffer.from("e2e-secret-e2e-secret-e2e-secret").toString("base64"),
      },
    });
    base = service.base;
  }, 120_000);

  afterAll(async () => {
    await service?.stop("SIGKILL");
    await origin?.close();
  });

  const inspect = async (url: string, query: string) => {
    const response = await fetch(`${base}/api/v1/inspect?${query}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  it("inspects an image, a video (202 -> job -> complete, thumbnail served) and refuses SSRF", async () => {
    const nonce = Date.now();
    const image = await inspect(`${origin.url}/media/png-opaque.png?e2e=${nonce}`, "profile=standard");
    expect(image.status).toBe(200);
    expect(image.body.processing.status).toBe("complete");
    const thumb = await fetch(`${base}${image.body.data.preview.thumbnail.url}`);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get("content-type")).toBe("image/webp");

    const video = await inspect(`${origin.url}/media/video-moov-end.mp4?e2e=${nonce}`, "profile=standard");
    expect(video.status).toBe(202);
    const job: any = await waitFor(async () => {
      const now: any = await (await fetch(`${base}/api/v1/job/${video.body.job.id}`)).json();
      return (now.job.status === "completed" || now.job.status === "failed") && now;
    }, { timeoutMs: 30_000, intervalMs: 100, what: "the job finished" });
    expect(job.job.status).toBe("completed");
    expect(job.data.data.metadata.video.fps).toBe(25);
    expect(job.data.data.preview.thumbnail.dimensions).toBe("320x180");

    const blocked = await inspect("http://169.254.169.254/latest/meta-data/", "profile=fast");
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.code).toBe("SSRF_BLOCKED");
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  }, 90_000);

  it("stops the Worker and the runner on SIGTERM, leaving no process behind", async () => {
    expect(await service.stop("SIGTERM")).toBe(0);
    const gone = () => processesMentioning(`--port ${service.port}`).length === 0 && processesMentioning(`entry=127.0.0.1:${service.port}`).length === 0;
    await waitFor(gone, { timeoutMs: 10_000, what: "the service's processes gone" }).catch(() => undefined);
    expect(processesMentioning(`--port ${service.port}`)).toEqual([]);
    expect(processesMentioning(`entry=127.0.0.1:${service.port}`)).toEqual([]);
    const runnerUp = await fetch(`http://127.0.0.1:${service.runnerPort}/v1/health`).then(() => true, () => false);
    expect(runnerUp).toBe(false);
  }, 30_000);
});
