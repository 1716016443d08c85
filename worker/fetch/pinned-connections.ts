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

export class PinnedConnections {
  private readonly idle = new Map<string, { conn: PinnedConnection; timer: ReturnType<typeof setTimeout> }>();
  /** Connections opened and exchanges that reused one, for diagnostics and tests. */
  readonly counts = { reused: 0 };

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
