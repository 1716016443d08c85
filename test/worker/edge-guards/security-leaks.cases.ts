// Issue 15, findings 5 and 7: no caller sees another caller's URL, and webhooks cannot be used as a cannon.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { WebhookEvent } from "../../../shared/schemas/webhook.ts";
import { normalizeUrl } from "../../../worker/record/target-url.ts";
import { inspect, media } from "../../../testkit/worker/helpers.ts";
import { awaitDeliveries, pollJob, settledDeliveries } from "../../../testkit/worker/jobs.ts";

const receiverBase = (env as unknown as { WEBHOOK_URL_BASE: string }).WEBHOOK_URL_BASE;
const hook = (kind: "ok" | "gone") => `/${kind}/${crypto.randomUUID()}`;

describe("two callers of one resource (finding 5)", () => {
  it("the record keeps the normalised URL; each job result and webhook carries its own caller's URL", async () => {
    const base = media("video.mp4");
    const urlA = `${base}&utm_source=newsletter&si=SHARE-A#access_token=SECRET-A`;
    const urlB = `${base}&fbclid=CLICK-B&gclid=G#token=SECRET-B`;
    const [pathA, pathB] = [hook("ok"), hook("ok")];
    const a = await inspect(undefined, "profile=standard", { body: JSON.stringify({ url: urlA, webhookUrl: `${receiverBase}${pathA}` }) });
    const b = await inspect(undefined, "profile=standard", { body: JSON.stringify({ url: urlB, webhookUrl: `${receiverBase}${pathB}` }) });
    expect([a.status < 300, b.status < 300]).toEqual([true, true]);
    expect(a.body.data.identity.url).toBe(urlA);
    expect(b.body.data.identity.url).toBe(urlB);
    // One resource: the stored identity has neither fragment nor tracking parameters.
    expect(b.body.data.identity.finalUrl).toBe(base);
    expect(JSON.stringify(b.body)).not.toMatch(/SECRET-A|SHARE-A|newsletter/);
    expect(JSON.stringify(a.body)).not.toMatch(/SECRET-B|CLICK-B/);

    const [jobA, jobB] = await Promise.all([pollJob(a.body.job.id), pollJob(b.body.job.id)]);
    expect(jobA.final.data.data.identity.url).toBe(urlA);
    expect(jobB.final.data.data.identity.url).toBe(urlB);
    expect(JSON.stringify(jobB.final)).not.toMatch(/SECRET-A|SHARE-A/);
    expect(JSON.stringify(jobA.final)).not.toMatch(/SECRET-B|CLICK-B/);

    const [da, db] = await Promise.all([awaitDeliveries(pathA, 1), awaitDeliveries(pathB, 1)]);
    const eventA = WebhookEvent.parse(JSON.parse(da.deliveries[0]!.body));
    const eventB = WebhookEvent.parse(JSON.parse(db.deliveries[0]!.body));
    expect(eventA.data.url).toBe(urlA);
    expect(eventB.data.url).toBe(urlB);
    expect(db.deliveries[0]!.body).not.toMatch(/SECRET-A|SHARE-A/);
    expect(da.deliveries[0]!.body).not.toMatch(/SECRET-B|CLICK-B/);
  }, 40_000);

  it("normalizeUrl drops the fragment and the named tracking parameters, and keeps the rest", () => {
    const u = new URL("https://v.example/watch?v=1&utm_source=x&UTM_Medium=y&si=z&fbclid=f&gclid=g&msclkid=m&t=30#frag");
    expect(normalizeUrl(u)).toBe("https://v.example/watch?v=1&t=30");
    expect(normalizeUrl(new URL("https://v.example/a?b=%2F&c"))).toBe("https://v.example/a?b=%2F&c");
  });
});

describe("webhook cannon (finding 7)", () => {
  it("repeated inspections with one webhookUrl join the pending job: one POST, not one per request", async () => {
    const url = media("audio.ogg");
    expect((await inspect(url, "profile=fast")).status).toBe(200);
    const path = hook("ok");
    const replies = [];
    for (let i = 0; i < 5; i++) {
      replies.push(await inspect(undefined, "profile=fast", { body: JSON.stringify({ url, webhookUrl: `${receiverBase}${path}` }) }));
    }
    expect(new Set(replies.map((r) => r.body.job?.id)).size).toBe(1);
    await awaitDeliveries(path, 1);
    const settled = await settledDeliveries(url, replies[0]!.body.job.id, path);
    expect(settled.attempts).toBe(1);
    expect(settled.deliveries).toHaveLength(1);
  }, 30_000);

  it("a receiver answering 4xx is not retried", async () => {
    const path = hook("gone");
    const url = media("audio.ogg");
    const res = await inspect(undefined, "profile=fast", { body: JSON.stringify({ url, webhookUrl: `${receiverBase}${path}` }) });
    expect(res.status).toBe(200);
    await awaitDeliveries(path, 1);
    // Retries would follow a transient failure (WEBHOOK_RETRY_BASE_MS=200 in tests); a 4xx settles at once.
    const { attempts, deliveries } = await settledDeliveries(url, res.body.job.id, path);
    expect(attempts).toBe(1);
    expect(deliveries.map((d) => d.answered)).toEqual([410]);
  }, 30_000);
});
