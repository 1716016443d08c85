/**
 * The probe sends a file's head and its suffix (`bytes=-n`) together, pipelined on one connection (issue 22
 * item 3). An origin that answers only the first request on a connection and ignores the rest (broken pipelining;
 * a normal keep-alive server answers them in turn) must cost at most the suffix's patience
 * (`probeSuffixPatienceMs`), after which readers fetch what they need as before: never a probe held to its
 * deadline.
 */
import { readFileSync } from "node:fs";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeSuffixPatienceMs } from "../../worker/config/limits.ts";
import { ensureMediaFixtures } from "../../testkit/media-fixtures.ts";
import { startService, type StartedService } from "../../testkit/start-service.ts";

const root = join(import.meta.dirname, "..", "..");

/** Range-aware, keep-alive, but deaf after the first request on each connection; counts requests answered. */
function firstRequestOnlyOrigin(file: Buffer): { server: Server; answered: () => number; sockets: Set<Socket> } {
  let answered = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let head = "";
    let done = false;
    socket.on("data", (chunk) => {
      if (done) return;
      head += chunk.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      done = true;
      answered += 1;
      const range = head.slice(0, end).split("\r\n").find((line) => line.toLowerCase().startsWith("range: bytes="))?.slice(13);
      let from = 0;
      let to = file.length - 1;
      if (range) {
        const [a = "", b = ""] = range.split("-");
        if (a === "") from = Math.max(0, file.length - Number(b));
        else {
          from = Number(a);
          if (b !== "") to = Math.min(to, Number(b));
        }
      }
      const body = file.subarray(from, to + 1);
      socket.write(`HTTP/1.1 ${range ? "206 Partial Content" : "200 OK"}\r\nContent-Type: audio/flac\r\nContent-Length: ${body.length}\r\n`
        + `${range ? `Content-Range: bytes ${from}-${to}/${file.length}\r\n` : ""}Accept-Ranges: bytes\r\nConnection: keep-alive\r\n\r\n`);
      socket.write(body);
    });
  });
  return { server, answered: () => answered, sockets };
}

describe("an origin that ignores pipelined requests", () => {
  let origin: ReturnType<typeof firstRequestOnlyOrigin>;
  let base: string;
  let service: StartedService;

  beforeAll(async () => {
    const media = ensureMediaFixtures(join(root, "test", ".fixtures", "media"));
    origin = firstRequestOnlyOrigin(readFileSync(join(media, "audio.flac")));
    await new Promise<void>((resolve) => origin.server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(origin.server.address() as AddressInfo).port}`;
    service = await startService({ env: { SSRF_ALLOWLIST: base.slice("http://".length) } });
  }, 150_000);

  afterAll(async () => {
    await service?.stop();
    for (const socket of origin?.sockets ?? []) socket.destroy();
    await new Promise<void>((resolve) => origin?.server.close(() => resolve()));
  });

  it("fast still answers with the file's facts, within the suffix's patience plus the usual time", async () => {
    const started = Date.now();
    const res = await fetch(`${service.base}/api/v1/inspect?profile=fast&url=${encodeURIComponent(`${base}/audio.flac`)}`);
    const ms = Date.now() - started;
    const body = (await res.json()) as { processing: { status: string }; data: { metadata: { audio?: { sampleRate?: number; duration?: { seconds: number } } } } };
    expect(res.status).toBe(200);
    expect(body.data.metadata.audio?.sampleRate).toBe(48_000);
    expect(body.data.metadata.audio?.duration?.seconds).toBeCloseTo(5, 0);
    expect(ms).toBeLessThan(probeSuffixPatienceMs + 6_000);
    expect(origin.answered()).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
