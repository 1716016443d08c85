// Webhooks through the Worker: a video inspection with `webhookUrl` pointing at the loopback receiver
// (global-setup) gets one completion event, signed per Standard Webhooks and verified here with the reference
// library (`standardwebhooks`, run inside workerd); a receiver that fails twice gets retries with growing
// gaps and exactly one accepted delivery; private targets are refused at request time.
import { env } from "cloudflare:test";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { WebhookEvent } from "../../../shared/schemas/webhook.ts";
import { inspect, media } from "../../../testkit/worker/helpers.ts";
import { awaitDeliveries, pollJob, settledDeliveries } from "../../../testkit/worker/jobs.ts";

const secret = (env as unknown as { WEBHOOK_SECRET: string }).WEBHOOK_SECRET;
const receiverBase = (env as unknown as { WEBHOOK_URL_BASE: string }).WEBHOOK_URL_BASE;
const uniquePath = (kind: "ok" | "fail2") => `/${kind}/${crypto.randomUUID()}`;

function verified(delivery: { headers: Record<string, string>; body: string }) {
  return new Webhook(secret).verify(delivery.body, {
    "webhook-id": delivery.headers["webhook-id"]!,
    "webhook-timestamp": delivery.headers["webhook-timestamp"]!,
    "webhook-signature": delivery.headers["webhook-signature"]!,
  });
}

describe("webhook delivery", { timeout: 30_000 }, () => {
  it("a video inspection with webhookUrl gets exactly one signed inspection.completed event", async () => {
    const path = uniquePath("ok");
    const url = media("video.mp4");
    const res = await inspect(undefined, "", { body: JSON.stringify({ url, webhookUrl: `${receiverBase}${path}` }) });
    expect(res.status).toBe(202);
    const jobId: string = res.body.job.id;

    const { deliveries } = await awaitDeliveries(path, 1);
    const [delivery] = deliveries;
    expect(delivery!.answered).toBe(204);
    expect(delivery!.headers["content-type"]).toMatch(/^application\/json/);
    expect(delivery!.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    const sentAt = Number(delivery!.headers["webhook-timestamp"]);
    expect(Math.abs(Date.now() / 1000 - sentAt)).toBeLessThan(60);
    expect(delivery!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    // The reference library accepts it with the configured secret...
    const payload = verified(delivery!) as any;
    const event = WebhookEvent.parse(payload);
    expect(event.type).toBe("inspection.completed");
    expect(event.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(event.data).toMatchObject({ jobId, url, status: "completed" });
    expect(event.data.result!.processing).toMatchObject({ status: "complete", pendingStages: [] });
    expect(event.data.result!.data.metadata!.video).toMatchObject({ width: 640, height: 360, fps: 25, codec: "h264" });
    expect(event.data.result!.data.preview!.thumbnail!.url).toMatch(/^\/api\/v1\/thumbnails\//);
    // ...and rejects a tampered body, a wrong secret and a stale timestamp (so the check above can fail).
    expect(() => verified({ ...delivery!, body: delivery!.body.replace("completed", "complete_") })).toThrow(WebhookVerificationError);
    const other = new Webhook("whsec_" + btoa("another-secret-of-32-bytes-long!!"));
    expect(() => other.verify(delivery!.body, delivery!.headers)).toThrow(WebhookVerificationError);
    expect(() => verified({ ...delivery!, headers: { ...delivery!.headers, "webhook-timestamp": String(sentAt - 3600) } })).toThrow(
      WebhookVerificationError,
    );

    // The job agrees, and no second delivery follows.
    const job = await pollJob(jobId);
    expect(job.final.job.status).toBe("completed");
    const settled = await settledDeliveries(url, jobId, path);
    expect(settled.attempts).toBe(1);
    expect(settled.deliveries).toHaveLength(1);
  });

  it("a receiver failing twice gets three attempts with growing gaps and exactly one accepted delivery", async () => {
    const path = uniquePath("fail2");
    const url = media("video.mp4");
    const res = await inspect(undefined, "", { body: JSON.stringify({ url, webhookUrl: `${receiverBase}${path}` }) });
    expect(res.status).toBe(202);
    const { deliveries, seenAt } = await awaitDeliveries(path, 3, 20_000, 10);
    expect(deliveries.map((d) => d.answered)).toEqual([500, 500, 200]);
    // Every attempt is the same message (same id and body), freshly signed, and verifies.
    expect(new Set(deliveries.map((d) => d.headers["webhook-id"])).size).toBe(1);
    expect(new Set(deliveries.map((d) => d.body)).size).toBe(1);
    for (const d of deliveries) expect(() => verified(d)).not.toThrow();
    // WEBHOOK_RETRY_BASE_MS=200 in the test bindings: the retries wait at least 200 ms, then 400 ms (exponential).
    // Arrival is observed by polling every 10 ms, so allow that much slack; load only makes gaps longer, so the
    // upper bound is loose (it still catches a fixed long delay or a missed alarm).
    const base = 200;
    const slack = 40;
    const gaps = [seenAt[1]! - seenAt[0]!, seenAt[2]! - seenAt[1]!];
    expect(gaps[0]).toBeGreaterThanOrEqual(base - slack);
    expect(gaps[1]).toBeGreaterThanOrEqual(2 * base - slack);
    for (const gap of gaps) expect(gap).toBeLessThan(4000);
    const { attempts, deliveries: after } = await settledDeliveries(url, res.body.job.id, path);
    expect(attempts).toBe(3);
    expect(after).toHaveLength(3);
    expect(after.filter((d) => d.answered >= 200 && d.answered < 300)).toHaveLength(1);
  });

  it("a webhookUrl on an already complete resource answers 200 and still gets its one event", async () => {
    const url = media("video.mp4");
    expect((await inspect(url, "profile=full")).status).toBe(200);
    const path = uniquePath("ok");
    const res = await inspect(undefined, "", { body: JSON.stringify({ url, webhookUrl: `${receiverBase}${path}` }) });
    expect(res.status).toBe(200);
    expect(res.body.job).toEqual({ id: expect.any(String), status: "complete" });
    const { deliveries } = await awaitDeliveries(path, 1);
    const event = WebhookEvent.parse(verified(deliveries[0]!));
    expect(event.data.jobId).toBe(res.body.job.id);
    const settled = await settledDeliveries(url, res.body.job.id, path);
    expect(settled.attempts).toBe(1);
    expect(settled.deliveries).toHaveLength(1);
  });

  it("two callers with different webhookUrls on one resource each get exactly their own event", async () => {
    const url = media("video-moov-end.mp4");
    const [pa, pb] = [uniquePath("ok"), uniquePath("ok")];
    const [a, b] = await Promise.all([
      inspect(undefined, "", { body: JSON.stringify({ url, webhookUrl: `${receiverBase}${pa}` }) }),
      inspect(undefined, "", { body: JSON.stringify({ url, webhookUrl: `${receiverBase}${pb}` }) }),
    ]);
    const [da, db] = await Promise.all([awaitDeliveries(pa, 1), awaitDeliveries(pb, 1)]);
    expect(WebhookEvent.parse(verified(da.deliveries[0]!)).data.jobId).toBe(a.body.job.id);
    expect(WebhookEvent.parse(verified(db.deliveries[0]!)).data.jobId).toBe(b.body.job.id);
    expect(da.deliveries[0]!.headers["webhook-id"]).not.toBe(db.deliveries[0]!.headers["webhook-id"]);
    const [sa, sb] = await Promise.all([settledDeliveries(url, a.body.job.id, pa), settledDeliveries(url, b.body.job.id, pb)]);
    expect([sa.attempts, sb.attempts]).toEqual([1, 1]);
    expect(sa.deliveries).toHaveLength(1);
    expect(sb.deliveries).toHaveLength(1);
  });

  it("a failing runner still ends in one event, status failed (stages failed, not pending)", async () => {
    const path = uniquePath("ok");
    const res = await inspect(undefined, "", { body: JSON.stringify({ url: media("video.mp4", "runner=fail"), webhookUrl: `${receiverBase}${path}` }) });
    expect(res.status).toBe(202);
    const { deliveries } = await awaitDeliveries(path, 1, 20_000);
    const event = WebhookEvent.parse(verified(deliveries[0]!));
    expect(event.data.status).toBe("failed");
    expect(event.data.result!.processing.pendingStages).toEqual([]);
    // The video facts came from the moov at the edge (issue 9); only the runner's previews fail.
    expect(event.data.result!.processing.failedStages).toEqual(
      expect.arrayContaining(["preview:thumbnail", "preview:blurhash", "preview:palette"]),
    );
  });
});

describe("webhook targets go through the SSRF checks at request time", () => {
  it.each([
    "http://10.0.0.1/hook",
    "http://169.254.169.254/",
    "http://127.0.0.1:9/hook",
    "http://[::1]/hook",
    "http://private.test/hook",
    "http://meta.test/latest",
  ])("webhookUrl %s -> 403 SSRF_BLOCKED, no job", async (webhookUrl) => {
    const res = await inspect(undefined, "", { body: JSON.stringify({ url: media("video.mp4"), webhookUrl }) });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ status: "error", error: { code: "SSRF_BLOCKED", message: expect.any(String) } });
  });

  it.each(["ftp://example.com/hook", "not a url", "javascript:alert(1)"])("webhookUrl %s -> 400", async (webhookUrl) => {
    const res = await inspect(undefined, "", { body: JSON.stringify({ url: media("video.mp4"), webhookUrl }) });
    expect(res.status).toBe(400);
    expect(res.body.status).toBe("error");
  });
});
