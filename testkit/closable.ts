import type { Server } from "node:net";
import type { Socket } from "node:net";

/**
 * Tracks a server's sockets so closing never waits on a client: keep-alive connections from workerd, or a
 * response a fault route holds open, would otherwise keep `server.close()` (and the test run) waiting forever.
 */
export function closable(server: Server): () => Promise<void> {
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
}
