// Issue 14 item 5 in the runner: one origin's hanging connections hold at most RUNNER_ORIGIN_MAX_CONCURRENT
// sockets; requests queued behind them give up with their own deadline; other origins are not held up.
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OriginLimiter, originLimiter, RUNNER_ORIGIN_MAX_CONCURRENT } from "../../media-runner/src/fetch/origin-slots.ts";
import { systemResolver } from "../../media-runner/src/fetch/resolver.ts";
import { createSsrfAgent } from "../../media-runner/src/fetch/ssrf-agent.ts";
import { discard, openUpstream, type UpstreamContext } from "../../media-runner/src/fetch/upstream.ts";
import { isRunnerError } from "../../media-runner/src/errors.ts";
import { testConfig } from "../../testkit/runner/harness.ts";
import { waitFor } from "../../testkit/wait-for.ts";

const deadlineMs = 1_500;
const perOrigin = 2;

let hang: TcpServer;
let good: Server;
let hangUrl: URL;
let goodUrl: URL;
const hangSockets = new Set<Socket>();
let hangConnections = 0;
let ctx: UpstreamContext;
let limiter: OriginLimiter;

beforeAll(async () => {
  hang = createTcpServer((s) => {
    hangConnections += 1;
    hangSockets.add(s);
    s.on("error", () => {});
    s.on("close", () => hangSockets.delete(s));
  });
  good = createHttpServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
  await new Promise<void>((r) => hang.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => good.listen(0, "127.0.0.1", r));
  const hangPort = (hang.address() as AddressInfo).port;
  const goodPort = (good.address() as AddressInfo).port;
  hangUrl = new URL(`http://127.0.0.1:${hangPort}/file.mp4`);
  goodUrl = new URL(`http://127.0.0.1:${goodPort}/file.mp4`);
  const allowlist = testConfig({ SSRF_ALLOWLIST: `127.0.0.1:${hangPort},127.0.0.1:${goodPort}` }).allowlist;
  limiter = new OriginLimiter(perOrigin);
  const dispatcher = createSsrfAgent({ allowlist, resolve: systemResolver, connectTimeoutMs: 5_000 });
  ctx = { dispatcher, allowlist, maxRedirects: 3, fetchTimeoutMs: deadlineMs, originLimiter: limiter };
});

afterAll(async () => {
  for (const s of hangSockets) s.destroy();
  await new Promise<void>((r) => hang.close(() => r()));
  await new Promise<void>((r) => good.close(() => r()));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("runner per-origin limiter", () => {
  it("the shipped cap is a small named constant", () => {
    expect(RUNNER_ORIGIN_MAX_CONCURRENT).toBeGreaterThanOrEqual(2);
    expect(originLimiter.perOrigin).toBe(RUNNER_ORIGIN_MAX_CONCURRENT);
  });

  it("a hanging origin holds at most its cap of sockets; queued requests give up with their deadline; other origins pass", async () => {
    hangConnections = 0;
    const started = performance.now();
    const attempts = Array.from({ length: 5 }, () =>
      openUpstream(hangUrl, ctx).then(
        () => ({ error: undefined, ms: performance.now() - started, connections: hangConnections }),
        (error: unknown) => ({ error, ms: performance.now() - started, connections: hangConnections }),
      ));
    await waitFor(() => hangConnections === perOrigin && limiter.load(hangUrl.origin).queued === 5 - perOrigin, { what: "the cap's sockets open, the rest queued" });
    expect(limiter.load(hangUrl.origin)).toEqual({ active: perOrigin, queued: 5 - perOrigin });
    expect(hangConnections).toBe(perOrigin);

    // Another origin is answered at once while the hanging one is saturated.
    const other = await openUpstream(goodUrl, ctx);
    expect(other.status).toBe(200);
    discard(other.body);
    expect(performance.now() - started).toBeLessThan(deadlineMs);
    const outcomes = await Promise.all(attempts);
    // Until the first slots are released at the deadline, the queued ones open no connection.
    expect(Math.min(...outcomes.map((o) => o.connections))).toBe(perOrigin);
    for (const { error, ms } of outcomes) {
      expect(isRunnerError(error) && error.code).toBe("UPSTREAM_TIMEOUT");
      // Every attempt, queued or not, ends at its own deadline (not a slot's wait plus a deadline).
      expect(ms).toBeGreaterThanOrEqual(deadlineMs - 50);
      expect(ms).toBeLessThan(deadlineMs + 1_000);
    }
    // Nothing is left behind.
    expect(limiter.load(hangUrl.origin)).toEqual({ active: 0, queued: 0 });
  });

  it("slots go to waiters in order, never above the cap, and an aborted waiter leaves the queue", async () => {
    const one = new OriginLimiter(1);
    const url = new URL("http://example.test/");
    const order: string[] = [];
    let active = 0;
    let peak = 0;
    const release: (() => void)[] = [];
    const task = (name: string) => () =>
      new Promise<string>((resolve) => {
        active += 1;
        peak = Math.max(peak, active);
        order.push(name);
        release.push(() => {
          active -= 1;
          resolve(name);
        });
      });
    const controller = new AbortController();
    const a = one.run(url, new AbortController().signal, task("a"));
    const b = one.run(url, controller.signal, task("b"));
    const c = one.run(url, new AbortController().signal, task("c"));
    await sleep(10);
    expect(one.load(url.origin)).toEqual({ active: 1, queued: 2 });
    controller.abort(new Error("job cancelled"));
    await expect(b).rejects.toThrow("job cancelled");
    expect(one.load(url.origin)).toEqual({ active: 1, queued: 1 });
    release.shift()!();
    // A newcomer arriving as the slot is handed over waits behind c.
    const d = one.run(url, new AbortController().signal, task("d"));
    await expect(a).resolves.toBe("a");
    await sleep(10);
    release.shift()!();
    await expect(c).resolves.toBe("c");
    await sleep(10);
    release.shift()!();
    await expect(d).resolves.toBe("d");
    expect(order).toEqual(["a", "c", "d"]);
    expect(peak).toBe(1);
    expect(one.load(url.origin)).toEqual({ active: 0, queued: 0 });
  });

  it("an already aborted signal is refused before taking a slot", async () => {
    const one = new OriginLimiter(1);
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    let ran = false;
    await expect(one.run(new URL("http://example.test/"), controller.signal, async () => (ran = true))).rejects.toThrow("gone");
    expect(ran).toBe(false);
  });
});
