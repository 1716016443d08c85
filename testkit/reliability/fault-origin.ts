/**
 * Misbehaving origins for the fault suite, one per loopback address (127.0.1.1, 127.0.1.2, ...) on one port,
 * so each is a distinct origin to the service. Kinds, by index: slow (headers after `slowMs`), trickle (a video
 * header, then 1 byte per second), reset (connection closed at once), hang (connection accepted, nothing sent).
 */
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from "node:net";

export const faultKinds = ["slow", "trickle", "reset", "hang"] as const;
export type FaultKind = (typeof faultKinds)[number];

export interface FaultOrigins {
  /** URL of origin i (its kind is faultKinds[i % 4]). */
  url(i: number, nonce: string): string;
  kind(i: number): FaultKind;
  /** Allow-list entry covering every fault origin. */
  allowlist: string;
  close(): Promise<void>;
}

const mp4Head = Buffer.from("000000206674797069736f6d0000020069736f6d69736f32617663316d703431", "hex");

export async function startFaultOrigins(count: number, slowMs = 20_000, port = 0): Promise<FaultOrigins> {
  const servers: (Server | TcpServer)[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => {});
  };
  let chosenPort = port;
  for (let i = 0; i < count; i++) {
    const host = `127.0.1.${i + 1}`;
    const kind = faultKinds[i % faultKinds.length]!;
    let server: Server | TcpServer;
    if (kind === "hang") {
      server = createTcpServer(track); // accepts and never answers
    } else {
      server = createHttpServer((req, res) => {
        if (kind === "reset") return req.socket.destroy();
        if (kind === "slow") {
          const t = setTimeout(() => res.writeHead(200, { "content-type": "video/mp4", "content-length": "4" }).end("late"), slowMs);
          timers.add(t);
          return;
        }
        // trickle: announces 1 MiB of MP4, sends the ftyp box, then one byte a second.
        const total = 1024 * 1024;
        const range = /^bytes=(\d+)-(\d+)?$/.exec(req.headers.range ?? "");
        const start = range ? Number(range[1]) : 0;
        res.writeHead(range ? 206 : 200, {
          "content-type": "video/mp4",
          "accept-ranges": "bytes",
          ...(range ? { "content-range": `bytes ${start}-${total - 1}/${total}` } : {}),
          "content-length": String(total - start),
        });
        if (start === 0) res.write(mp4Head);
        const t = setInterval(() => res.write(Buffer.from([0])), 1_000);
        timers.add(t);
        res.on("close", () => clearInterval(t));
      });
      server.on("connection", track);
    }
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(chosenPort, host, () => resolve());
    });
    chosenPort = (server.address() as { port: number }).port;
    servers.push(server);
  }
  return {
    url: (i, nonce) => `http://127.0.1.${i + 1}:${chosenPort}/${faultKinds[i % faultKinds.length]}/file.mp4?n=${nonce}`,
    kind: (i) => faultKinds[i % faultKinds.length]!,
    allowlist: `127.0.1.0/24`,
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
