// Issue 25 item 5: Idempotency-Key on POST. A retry with the same key and body answers the first answer
// (byte for byte, Idempotent-Replayed: true) and registers no second webhook; a different body is 422.
import { SELF, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { media } from "./helpers.ts";
import { awaitDeliveries, sleep, webhookDeliveries } from "../support/worker-jobs.ts";

const receiverBase = (env as unknown as { WEBHOOK_URL_BASE: string }).WEBHOOK_URL_BASE;

async function post(path: string, body: unknown, key: string) {
  const response = await SELF.fetch(`http://service${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": key },
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
    await sleep(1_000);
    expect(await webhookDeliveries(hook)).toHaveLength(1);
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
