/**
 * An origin that ends every answer by closing the connection (HTTP/1.0, no Range: Python's http.server, many
 * small hosts) while the runner reads the body more slowly than it arrives. undici 7 pauses its parser under that
 * backpressure and, when the origin's FIN comes while paused, threw an uncatchable AssertionError from the
 * socket's `end` handler (nodejs/undici#5360): one such origin took the whole runner down. Found by hand against
 * `npm start` with `python3 -m http.server` as the origin.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { RunnerResponse, runnerHealthPath } from "../../shared/shapes/runner.ts";
import { processRequest, testApp } from "../../testkit/runner/harness.ts";

const dir = mkdtempSync(join(tmpdir(), "close-delimited-"));
let server: Server;
let base: string;
let app: RunnerApp;
const sockets = new Set<Socket>();

/** Answers every request with the whole named file, HTTP/1.0 style: no Range, then FIN. */
function closeDelimitedOrigin(): Server {
  return createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let head = "";
    socket.on("data", (chunk) => {
      if (head.includes("\r\n\r\n")) return;
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      const path = head.split(" ")[1] ?? "/";
      const name = path.split("/").pop() ?? "";
      let body: Buffer;
      try {
        body = readFileSync(join(dir, name));
      } catch {
        socket.end("HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        return;
      }
      const type = name.endsWith(".mp4") ? "video/mp4" : name.endsWith(".png") ? "image/png" : "application/octet-stream";
      socket.write(`HTTP/1.0 200 OK\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n`);
      socket.end(body);
    });
  });
}

beforeAll(async () => {
  // Big enough (several MB) that the body outruns the engine reading it: the parser pauses, then the FIN comes.
  execFileSync("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-t", "12",
    "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-pix_fmt", "yuv420p", join(dir, "big.mp4")]);
  server = closeDelimitedOrigin();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${port}` });
});

afterAll(async () => {
  await app.close();
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe("an origin that closes the connection after each answer", () => {
  it("video jobs read it whole, several at once, and the runner keeps running", async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () =>
      processRequest(app, { url: `${base}/big.mp4`, category: "video", stages: ["metadata", "thumbnail"] })));
    for (const res of answers) {
      expect(res.statusCode, res.body).toBe(200);
      const result = RunnerResponse.parse(res.json());
      expect(result.metadata?.video?.codec).toBe("h264");
      expect(result.thumbnail?.width).toBeGreaterThan(0);
    }
    // Still answering afterwards: the process did not die on a paused parser.
    const health = await app.inject({ method: "GET", url: runnerHealthPath });
    expect(health.statusCode).toBe(200);
  }, 120_000);
});
