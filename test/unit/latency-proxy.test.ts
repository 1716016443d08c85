import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SlowStart, startLatencyProxy, type LatencyProxy } from "../../bench/support/latency-proxy.ts";

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

describe("latency proxy with TCP slow start", () => {
  it("sends a large answer in flights of 10 segments, then twice as many each round trip", () => {
    const window = new SlowStart();
    const pieces = window.schedule(128 * 1024, 0, 80);
    expect(pieces).toEqual([[14_600, 0], [29_200, 80], [58_400, 160], [128 * 1024 - 102_200, 240]]);
  });

  it("keeps a warm connection's window: the next answer after an acknowledged flight leaves at once, in a bigger flight", () => {
    const window = new SlowStart();
    expect(window.schedule(16 * 1024, 0, 80)).toEqual([[14_600, 0], [16 * 1024 - 14_600, 80]]);
    // A second request's answer, two round trips later: the window has grown to 29,200 and then to 58,400.
    expect(window.schedule(64 * 1024, 400, 80)).toEqual([[58_400, 400], [64 * 1024 - 58_400, 480]]);
  });

  it("delays a 128 KiB answer by its flights over a real socket", async () => {
    const body = Buffer.alloc(128 * 1024, 0x61);
    const origin = createServer((_req, res) => res.end(body));
    await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
    const rtt = 40;
    const port = (origin.address() as AddressInfo).port;
    const plain = await startLatencyProxy({ host: "127.0.0.1", port }, rtt);
    const slow = await startLatencyProxy({ host: "127.0.0.1", port }, rtt, { slowStart: true });
    const timeOf = async (proxy: LatencyProxy) => {
      const agent = new Agent();
      const t0 = performance.now();
      const res = await request(`${proxy.url}/`, { dispatcher: agent });
      expect((await res.body.arrayBuffer()).byteLength).toBe(body.length);
      await agent.close();
      return performance.now() - t0;
    };
    try {
      // The request reaches the origin one round trip after the connect (the handshake) and the answer starts back
      // half a round trip later; slow start adds the three later flights, one round trip each.
      expect(await timeOf(plain)).toBeGreaterThanOrEqual(1.5 * rtt - 5);
      expect(await timeOf(slow)).toBeGreaterThanOrEqual(4.5 * rtt - 5);
    } finally {
      await plain.close();
      await slow.close();
      await new Promise((r) => origin.close(r));
    }
  });
});
