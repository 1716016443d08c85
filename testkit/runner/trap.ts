/** A listener that only counts TCP connections: proof that a denied address was never dialled. */
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";

export interface Trap {
  host: string;
  port: number;
  connections(): number;
  close(): Promise<void>;
}

export async function startTrap(host: string): Promise<Trap> {
  let count = 0;
  const sockets = new Set<import("node:net").Socket>();
  const server = createServer((socket) => {
    count++;
    // A client that keeps its end open (ffmpeg dialling the trap) would otherwise hold close() forever.
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.end("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nno");
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    host,
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    }),
  };
}
