/**
 * A userspace TCP latency proxy for loopback benches and tests (netem is not available on these machines):
 * listens on 127.0.0.1, forwards each connection to one loopback target, and delays every chunk by half the
 * round-trip time in each direction, plus one round trip before a new connection's first byte goes out (the
 * TCP handshake). Bandwidth is not limited: the figures are about round trips, not bytes. With `slowStart`, the
 * server-to-client direction also follows TCP slow start (RFC 5681 with RFC 6928's initial window): a new
 * connection sends at most 10 segments of 1,460 bytes in its first round trip, and the window doubles each round
 * trip after, so a large first response costs the round trips it would over a real network (a 128 KiB answer:
 * four), and a second request on a warm connection goes faster than the first.
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
/** RFC 6928's initial congestion window: 10 segments of a 1,500-byte MTU's 1,460-byte payload. */
const INITIAL_WINDOW_BYTES = 10 * 1460;
/** Where slow start stops doubling (a common initial ssthresh is effectively unbounded; this keeps it finite). */
const MAX_WINDOW_BYTES = 16 * 1024 * 1024;

export interface LatencyProxyOptions {
  /** Model TCP slow start on the server-to-client direction (see above). Default false. */
  slowStart?: boolean;
}

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

/**
 * A connection's congestion window in slow start: when each byte handed to it may leave the sender. Flights of
 * `window` bytes leave one round trip apart (the sender waits for the previous flight's acknowledgements), and the
 * window doubles with each. Idle time does not shrink it (Linux's slow start after idle is not modelled).
 */
export class SlowStart {
  private window = INITIAL_WINDOW_BYTES;
  private flightOpensAt = -Infinity;
  private flightBytes = 0;

  /** Send times for `bytes` offered at `now`: a list of [bytes, at] pieces, in order. */
  schedule(bytes: number, now: number, rttMs: number): Array<[number, number]> {
    const pieces: Array<[number, number]> = [];
    if (now >= this.flightOpensAt + rttMs && this.flightBytes > 0) {
      // The previous flight was acknowledged before these bytes came: a new flight starts now, window grown.
      this.grow();
      this.flightOpensAt = now;
    } else if (this.flightOpensAt === -Infinity) {
      this.flightOpensAt = now;
    }
    let left = bytes;
    while (left > 0) {
      if (this.flightBytes >= this.window) {
        this.grow();
        this.flightOpensAt += rttMs;
      }
      const take = Math.min(left, this.window - this.flightBytes);
      pieces.push([take, Math.max(now, this.flightOpensAt)]);
      this.flightBytes += take;
      left -= take;
    }
    return pieces;
  }

  private grow(): void {
    this.window = Math.min(this.window * 2, MAX_WINDOW_BYTES);
    this.flightBytes = 0;
  }
}

export async function startLatencyProxy(target: { host: string; port: number }, rttMs: number, options: LatencyProxyOptions = {}): Promise<LatencyProxy> {
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
    const window = options.slowStart ? new SlowStart() : undefined;
    const forward = (dir: Direction, chunk: Buffer, to: Socket, onDelivered?: () => void, sentAt = performance.now()) => {
      const at = Math.max(sentAt + oneWay, dir.last);
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
      const onDelivered = () => void (delivered = Math.max(delivered, d));
      if (!window) return forward(down, chunk, client, onDelivered);
      let offset = 0;
      for (const [bytes, at] of window.schedule(chunk.length, performance.now(), proxy.rttMs)) {
        forward(down, chunk.subarray(offset, offset + bytes), client, onDelivered, at);
        offset += bytes;
      }
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
