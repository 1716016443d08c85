/**
 * A userspace TCP latency proxy for loopback benches and tests (netem is not available on these machines):
 * listens on 127.0.0.1, forwards each connection to one loopback target, and delays every chunk by half the
 * round-trip time in each direction, plus one round trip before a new connection's first byte goes out (the
 * TCP handshake). Bandwidth is not limited: the figures are about round trips, not bytes.
 *
 * It also counts what crossed it since the last `reset()`: connections (by the user agent of their first
 * request, so the edge and the runner are told apart), bytes, and sequential round trips. The round-trip count
 * is a causal depth, independent of the delay: a request sent after the client saw a response of depth d has
 * depth d + 1 (d + 2 on a new connection, for the handshake); requests sent before any new response arrived
 * share a depth, so reads sent together count once. It assumes the worst: that whatever the client sends
 * depends on the latest response it received on any connection.
 */
import { createServer, connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/** Bytes of a connection's first chunk searched for its User-Agent header (bounded: attacker-free, but still). */
const MAX_SNIFF_BYTES = 8 * 1024;

export interface LatencyStats {
  /** New connections, and of them per user agent of their first request ("?" if none was seen). */
  connections: number;
  connectionsByAgent: Record<string, number>;
  /** Sequential round trips (causal depth) since the reset. */
  roundTrips: number;
  bytesUp: number;
  bytesDown: number;
}

export interface LatencyProxy {
  url: string;
  port: number;
  /** The round-trip time added, in ms; may be changed between runs. */
  rttMs: number;
  stats(): LatencyStats;
  /** Starts a new measurement: counters to zero, round trips counted from what the client has seen so far. */
  reset(): void;
  close(): Promise<void>;
}

interface Direction {
  /** When the previous chunk in this direction is delivered: chunks never overtake each other. */
  last: number;
  chain: Promise<void>;
}

const sleepUntil = (at: number) => {
  const ms = at - performance.now();
  return ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve();
};

export async function startLatencyProxy(target: { host: string; port: number }, rttMs: number): Promise<LatencyProxy> {
  if (target.host !== "127.0.0.1" && target.host !== "::1") throw new Error("the latency proxy forwards to loopback only");
  let stats: LatencyStats = { connections: 0, connectionsByAgent: {}, roundTrips: 0, bytesUp: 0, bytesDown: 0 };
  /** Highest depth of a response delivered to any client, and that value at the last reset. */
  let delivered = 0;
  let baseline = 0;
  const sockets = new Set<Socket>();

  const server = createServer((client) => {
    const oneWay = proxy.rttMs / 2;
    const accepted = performance.now();
    const openDepth = delivered;
    let depth = 0;
    let sniffed = false;
    stats.connections++;
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    // The handshake: the first byte reaches the server one round trip plus one way after the client connected.
    const up: Direction = { last: accepted + proxy.rttMs, chain: Promise.resolve() };
    const down: Direction = { last: 0, chain: Promise.resolve() };
    const forward = (dir: Direction, chunk: Buffer, to: Socket, onDelivered?: () => void) => {
      const at = Math.max(performance.now() + oneWay, dir.last);
      dir.last = at;
      dir.chain = dir.chain.then(() => sleepUntil(at)).then(() => {
        if (!to.destroyed) to.write(chunk);
        onDelivered?.();
      });
    };
    client.on("data", (chunk) => {
      if (!sniffed) {
        sniffed = true;
        const agent = userAgentOf(chunk.subarray(0, MAX_SNIFF_BYTES));
        stats.connectionsByAgent[agent] = (stats.connectionsByAgent[agent] ?? 0) + 1;
        depth = openDepth + 2;
      } else {
        depth = Math.max(depth, delivered + 1);
      }
      stats.roundTrips = Math.max(stats.roundTrips, depth - baseline);
      stats.bytesUp += chunk.length;
      forward(up, chunk, upstream);
    });
    upstream.on("data", (chunk) => {
      const d = depth;
      stats.bytesDown += chunk.length;
      forward(down, chunk, client, () => void (delivered = Math.max(delivered, d)));
    });
    // Ends and errors follow the data they came after.
    const end = (dir: Direction, to: Socket) => () => void dir.chain.then(() => sleepUntil(dir.last)).then(() => to.end());
    client.on("end", end(up, upstream));
    upstream.on("end", end(down, client));
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", drop).on("close", () => void down.chain.then(drop));
    upstream.on("error", drop).on("close", () => void down.chain.then(() => client.end()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const proxy: LatencyProxy = {
    url: `http://127.0.0.1:${port}`,
    port,
    rttMs,
    stats: () => ({ ...stats, connectionsByAgent: { ...stats.connectionsByAgent } }),
    reset() {
      stats = { connections: 0, connectionsByAgent: {}, roundTrips: 0, bytesUp: 0, bytesDown: 0 };
      baseline = delivered;
    },
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
  return proxy;
}

/** The User-Agent of an HTTP request head, by a linear scan of its lines. */
function userAgentOf(head: Buffer): string {
  for (const line of head.toString("latin1").split("\r\n")) {
    if (line === "") break;
    const colon = line.indexOf(":");
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === "user-agent") return line.slice(colon + 1).trim();
  }
  return "?";
}
