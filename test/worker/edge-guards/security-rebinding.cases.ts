// Issue 15 finding 1: the Worker connects to the address its DoH check approved, never to a name the runtime
// resolves again. The fake DoH answers names the system resolver cannot know: a connection that still
// arrives proves it went to the checked address; a name answered "public" never reaches the loopback trap.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inspect, origin, originStats, trapConnections, trapPort } from "../../../testkit/worker/helpers.ts";
import { awaitDeliveries } from "../../../testkit/worker/jobs.ts";

const originPort = new URL(origin).port;
const receiverPort = new URL((env as unknown as { WEBHOOK_URL_BASE: string }).WEBHOOK_URL_BASE).port;

describe("pinned connections (DNS rebinding)", () => {
  it("a name the DoH check approved is connected at that address, with the name as Host", async () => {
    const nonce = crypto.randomUUID();
    const { status, body } = await inspect(`http://pinned.test:${originPort}/media/audio.ogg?n=${nonce}`, "profile=fast");
    expect({ status, code: body.error?.code }).toEqual({ status: 200, code: undefined });
    const requests = (await originStats()).requests.filter((r) => r.path.includes(nonce));
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) expect(r.headers.host).toBe(`pinned.test:${originPort}`);
  });

  it("a name answered public by DoH is dialled at that public address, never at a loopback the system may answer", async () => {
    const before = await trapConnections();
    const { status, body } = await inspect(`http://rebind.test:${trapPort}/x?n=${crypto.randomUUID()}`, "profile=fast");
    // 8.8.8.8 is unreachable in the test's loopback-only namespace: a gateway error, and the trap saw nothing.
    expect(status).toBeGreaterThanOrEqual(500);
    expect(body.error.code).toMatch(/BAD_GATEWAY|TIMEOUT|UPSTREAM/);
    expect(await trapConnections()).toBe(before);
  });

  it("webhooks are delivered to the checked address too", async () => {
    const path = `/ok/${crypto.randomUUID()}`;
    const res = await inspect(undefined, "profile=fast", {
      body: JSON.stringify({ url: `${origin}/media/audio.ogg?n=${crypto.randomUUID()}`, webhookUrl: `http://hook.test:${receiverPort}${path}` }),
    });
    expect(res.status).toBe(200);
    const { deliveries } = await awaitDeliveries(path, 1);
    expect(deliveries[0]!.headers.host).toBe(`hook.test:${receiverPort}`);
  });
});
