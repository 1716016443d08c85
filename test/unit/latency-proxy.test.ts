import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLatencyProxy, type LatencyProxy } from "../../bench/support/latency-proxy.ts";

// The bench's latency proxy: its delays and its counts are what the RTT table reports.
describe("latency proxy", () => {
  let origin: Server;
  let proxy: LatencyProxy;
  const rtt = 60;

  beforeAll(async () => {
    origin = createServer((_req, res) => res.end("x".repeat(100)));
    await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
    proxy = await startLatencyProxy({ host: "127.0.0.1", port: (origin.address() as AddressInfo).port }, rtt);
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((r) => origin.close(r));
  });

  const get = async (agent: Agent, ua = "test-agent") => {
    const res = await request(`${proxy.url}/`, { dispatcher: agent, headers: { "user-agent": ua } });
    return res.body.text();
  };

  it("a first request on a new connection costs the handshake plus one round trip", async () => {
    const agent = new Agent({ keepAliveTimeout: 5_000 });
    proxy.reset();
    const t0 = performance.now();
    expect(await get(agent)).toHaveLength(100);
    const ms = performance.now() - t0;
    // The delays run on timers started as bytes arrive and overlap the client's own work, so time only bounds
    // from below loosely; the counts below are exact.
    expect(ms).toBeGreaterThanOrEqual(rtt);
    expect(proxy.stats()).toMatchObject({ connections: 1, roundTrips: 2, connectionsByAgent: { "test-agent": 1 } });
    await agent.close();
  });

  it("a second request on a kept-alive connection is one more round trip and no new connection", async () => {
    const agent = new Agent({ keepAliveTimeout: 5_000 });
    proxy.reset();
    await get(agent);
    // undici returns a connection to its pool on a later tick: a request issued at once would open another.
    await new Promise((r) => setTimeout(r, 10));
    const t1 = performance.now();
    await get(agent);
    expect(performance.now() - t1).toBeGreaterThanOrEqual(rtt / 2);
    expect(proxy.stats()).toMatchObject({ connections: 1, roundTrips: 3 });
    await agent.close();
  });

  it("requests sent together count once; requests sent one after another each count", async () => {
    const parallel = new Agent({ connections: 2 });
    proxy.reset();
    await Promise.all([get(parallel, "a"), get(parallel, "b")]);
    expect(proxy.stats()).toMatchObject({ connections: 2, roundTrips: 2, connectionsByAgent: { a: 1, b: 1 } });
    await parallel.close();

    proxy.reset();
    for (const ua of ["c", "d"]) {
      const fresh = new Agent();
      await get(fresh, ua);
      await fresh.close();
    }
    expect(proxy.stats()).toMatchObject({ connections: 2, roundTrips: 4 });
  });
});
