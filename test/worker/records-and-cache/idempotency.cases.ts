// Issue 25 item 5: Idempotency-Key on POST. A retry with the same key and body answers the first answer
// (byte for byte, Idempotent-Replayed: true) and registers no second webhook; a different body is 422; the
// same key while the first request is still running is 409 IDEMPOTENCY_KEY_IN_USE (as Stripe answers it).
import { SELF, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { media, origin, originStats } from "../../../testkit/worker/helpers.ts";
import { awaitDeliveries, settledDeliveries } from "../../../testkit/worker/jobs.ts";
import { waitFor } from "../../../testkit/wait-for.ts";

const receiverBase = (env as unknown as { WEBHOOK_URL_BASE: string }).WEBHOOK_URL_BASE;

async function post(path: string, body: unknown, key: string, headers: Record<string, string> = {}) {
  const response = await SELF.fetch(`http://service${path}`, {
    method: "POST",
    // A key belongs to an identified caller (CF-Connecting-IP, as Cloudflare's edge sets it: wrangler.toml).
    headers: { "content-type": "application/json", "idempotency-key": key, "cf-connecting-ip": "192.0.2.10", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

describe("idempotent POSTs", { timeout: 30_000 }, () => {
  it("the same key and body: the first answer again, one webhook delivery in all", async () => {
    const key = crypto.randomUUID();
    const hook = `/ok/${crypto.randomUUID()}`;
    const body = { url: media("video.mp4"), webhookUrl: `${receiverBase}${hook}` };
    const first = await post("/api/v1/inspect", body, key);
    expect(first.status, first.text).toBe(202);
    const retry = await post("/api/v1/inspect", body, key);
    expect(retry.status).toBe(202);
    // The first answer itself (responseSource "fresh", the same job), not a second inspection's.
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.headers.get("location")).toBe(first.headers.get("location"));
    await awaitDeliveries(hook, 1);
    const third = await post("/api/v1/inspect", body, key);
    expect(third.text).toBe(first.text);
    const settled = await settledDeliveries(body.url, JSON.parse(first.text).job.id, hook);
    expect(settled.attempts).toBe(1);
    expect(settled.deliveries).toHaveLength(1);
  });

  it("the same key with a different body is 422; another key is a new request", async () => {
    const key = crypto.randomUUID();
    const url = media("png-opaque.png");
    expect((await post("/api/v1/inspect", { url }, key)).status).toBe(200);
    const other = await post("/api/v1/inspect", { url: media("png-opaque.png") }, key);
    expect(other.status).toBe(422);
    expect(JSON.parse(other.text).error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    const fresh = await post("/api/v1/inspect", { url }, crypto.randomUUID());
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
  });

  it("the same key twice at once: one inspection and one webhook; the other is 409 IDEMPOTENCY_KEY_IN_USE, its retry the first answer", async () => {
    const key = crypto.randomUUID();
    const hook = `/ok/${crypto.randomUUID()}`;
    const tag = crypto.randomUUID().slice(0, 8);
    // The origin answers its redirect after 1.5 s, so the first request is still running when the second arrives.
    const url = `${origin}/redirect-to?ms=1500&tag=${tag}&url=${encodeURIComponent(media("video.mp4"))}`;
    const body = { url, webhookUrl: `${receiverBase}${hook}` };
    const both = await Promise.all([post("/api/v1/inspect", body, key), post("/api/v1/inspect", body, key)]);
    const first = both.find((r) => r.status !== 409)!;
    const refused = both.find((r) => r.status === 409);
    expect(first.status, first.text).toBe(202);
    expect(refused, both.map((r) => `${r.status} ${r.text}`).join("\n")).toBeDefined();
    expect(JSON.parse(refused!.text)).toEqual({
      status: "error",
      error: { code: "IDEMPOTENCY_KEY_IN_USE", message: expect.stringContaining("still being processed") },
    });
    expect(refused!.headers.get("retry-after")).toBe("1");
    expect(refused!.headers.get("idempotent-replayed")).toBeNull();
    // One inspection: the origin saw the URL once.
    const hits = (await originStats()).requests.filter((r) => r.path.startsWith("/redirect-to") && r.path.includes(`tag=${tag}`));
    expect(hits).toHaveLength(1);
    // The retry Retry-After asks for gets the first answer.
    const retry = await post("/api/v1/inspect", body, key);
    expect(retry.status).toBe(202);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    await awaitDeliveries(hook, 1);
    const settled = await settledDeliveries(url, JSON.parse(first.text).job.id, hook);
    expect(settled.attempts).toBe(1);
    expect(settled.deliveries).toHaveLength(1);
  });

  it("a key in use answers RFC 9457 problem details to a caller that asks for them", async () => {
    const key = crypto.randomUUID();
    const tag = crypto.randomUUID().slice(0, 8);
    const body = { urls: [`${origin}/redirect-to?ms=1000&tag=${tag}&url=${encodeURIComponent(media("png-opaque.png"))}`] };
    const running = post("/api/v1/inspect/batch?profile=fast", body, key);
    // The key is claimed before the inspection starts: once the origin sees the URL, the first request holds it.
    await waitFor(async () => (await originStats()).requests.some((r) => r.path.startsWith("/redirect-to") && r.path.includes(`tag=${tag}`)),
      { what: "the first batch at the origin" });
    const refused = await post("/api/v1/inspect/batch?profile=fast", body, key, { accept: "application/problem+json" });
    expect(refused.status).toBe(409);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(JSON.parse(refused.text)).toMatchObject({ status: 409, code: "IDEMPOTENCY_KEY_IN_USE", type: expect.stringMatching(/\/problems\/idempotency-key-in-use$/) });
    const first = await running;
    expect(first.status, first.text).toBe(200);
    const retry = await post("/api/v1/inspect/batch?profile=fast", body, key);
    expect(retry.text).toBe(first.text);
  });

  it("a batch replays too", async () => {
    const key = crypto.randomUUID();
    const body = { urls: [media("png-opaque.png"), media("jpeg-orientation-6.jpg")] };
    const first = await post("/api/v1/inspect/batch?profile=fast", body, key);
    expect(first.status, first.text).toBe(200);
    const retry = await post("/api/v1/inspect/batch?profile=fast", body, key);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect((await post("/api/v1/inspect/batch?profile=standard", body, key)).status).toBe(422);
  });
});
