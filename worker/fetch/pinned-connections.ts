/**
 * One inspection's idle keep-alive connections for the pinned transport (pinned-http.ts). A pool belongs to
 * one fetch policy, which belongs to one inspection (or one webhook delivery): a connection is never shared
 * between inspections or callers. It is keyed by the checked address, the port and the TLS name, so a reused
 * connection goes exactly where a new one would have been pinned. Idle connections close after a bound.
 */

/** How long an idle connection is kept for the inspection's next read. */
export const PINNED_IDLE_MS = 4_000;
/** Idle connections kept per pool (one per origin is the aim; a few origins per inspection at most). */
export const MAX_IDLE_PINNED_CONNECTIONS = 4;

/** A socket (or its TLS stream) and the one reader every exchange on it reads through. */
export interface PinnedConnection {
  stream: { writable: WritableStream<Uint8Array>; readable: ReadableStream<Uint8Array> };
  reader: ReadableStreamDefaultReader<Uint8Array>;
  close(): void;
}

/** Where a connection goes: scheme (TLS or not), the checked address and port, and the certificate name. */
export function connectionKey(url: URL, address: string, port: number): string {
  return `${url.protocol}|${address}|${port}|${url.protocol === "https:" ? url.hostname : ""}`;
}

/**
 * One exchange in flight on a connection, with room for one pipelined request behind it (HTTP/1.1 section 9.3.2):
 * the follower writes its request as soon as the leader's is written, and reads its response once the leader's
 * body has ended, on the same connection. Reads that do not depend on each other (a file's head and its suffix)
 * then cost one round trip together, on one connection.
 */
export class Lane {
  /** The connection, once the leader's request is written on it; rejects if it never was. */
  readonly written: Promise<PinnedConnection>;
  resolveWritten!: (conn: PinnedConnection) => void;
  rejectWritten!: (err: unknown) => void;
  /** The pipelined request behind the leader, once claimed: given the connection (and bytes already read past the leader's body) or undefined. */
  follower?: { resolve: (handoff: { conn: PinnedConnection; leftover: Uint8Array } | undefined) => void };
  ended = false;

  constructor() {
    this.written = new Promise((resolve, reject) => {
      this.resolveWritten = resolve;
      this.rejectWritten = reject;
    });
    this.written.catch(() => {});
  }
}

export class PinnedConnections {
  private readonly idle = new Map<string, { conn: PinnedConnection; timer: ReturnType<typeof setTimeout> }>();
  private readonly lanes = new Map<string, Lane>();
  /** Connections opened and exchanges that reused one, for diagnostics and tests. */
  readonly counts = { reused: 0, pipelined: 0 };

  /** A new exchange to `key` starts (its connection may still be opening): later requests may pipeline behind it. */
  lead(key: string): Lane {
    const lane = new Lane();
    this.lanes.set(key, lane);
    return lane;
  }

  /** The exchange in flight to `key` with no pipelined request behind it yet, now claimed by the caller; or undefined. */
  follow(key: string): Lane | undefined {
    const lane = this.lanes.get(key);
    if (!lane || lane.ended || lane.follower) return undefined;
    return lane;
  }

  /**
   * The leader's exchange ended: the connection goes to its follower when there is one and it is still usable,
   * else back to the idle pool (reusable, nothing read past the body) or closed.
   */
  end(key: string, lane: Lane, conn: PinnedConnection, reusable: boolean, leftover: Uint8Array): void {
    lane.ended = true;
    if (this.lanes.get(key) === lane) this.lanes.delete(key);
    if (lane.follower) {
      if (reusable) {
        this.counts.pipelined += 1;
        return lane.follower.resolve({ conn, leftover });
      }
      conn.close();
      return lane.follower.resolve(undefined);
    }
    if (reusable && leftover.byteLength === 0) this.give(key, conn);
    else conn.close();
  }

  /** An idle connection to `key`, now owned by the caller, or undefined. */
  take(key: string): PinnedConnection | undefined {
    const entry = this.idle.get(key);
    if (!entry) return undefined;
    this.idle.delete(key);
    clearTimeout(entry.timer);
    this.counts.reused += 1;
    return entry.conn;
  }

  /** Gives back a connection whose last exchange ended cleanly; one idle connection per key is kept. */
  give(key: string, conn: PinnedConnection): void {
    if (this.idle.has(key) || this.idle.size >= MAX_IDLE_PINNED_CONNECTIONS) return conn.close();
    const timer = setTimeout(() => {
      if (this.idle.get(key)?.conn === conn) this.idle.delete(key);
      conn.close();
    }, PINNED_IDLE_MS);
    this.idle.set(key, { conn, timer });
  }

  /** Closes every idle connection (the inspection is over). */
  closeAll(): void {
    for (const { conn, timer } of this.idle.values()) {
      clearTimeout(timer);
      conn.close();
    }
    this.idle.clear();
  }
}
