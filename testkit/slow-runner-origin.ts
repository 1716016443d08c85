/**
 * A loopback origin serving one MP4 at any path with Range support, that answers the media runner (by its
 * User-Agent) only after a delay, so a runner job is reliably in flight when a test stops or kills something.
 * Counts the runner's and the Worker's requests.
 */
import { createReadStream, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface SlowRunnerOrigin {
  port: number;
  /** `http://127.0.0.1:<port>`: every path serves the file. */
  base: string;
  seen: { runner: number; worker: number };
  close(): Promise<void>;
}

export async function startSlowRunnerOrigin(file: string, runnerDelayMs: number): Promise<SlowRunnerOrigin> {
  const size = statSync(file).size;
  const seen = { runner: 0, worker: 0 };
  const server: Server = createServer((req, res) => {
    const fromRunner = String(req.headers["user-agent"] ?? "").startsWith("media-inspect-runner");
    if (fromRunner) seen.runner++;
    else seen.worker++;
    const answer = () => {
      const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
      const start = m ? Number(m[1]) : 0;
      const end = m && m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
      if (start >= size) return void res.writeHead(416, { "content-range": `bytes */${size}` }).end();
      res.writeHead(m ? 206 : 200, {
        "content-type": "video/mp4",
        "accept-ranges": "bytes",
        "content-length": String(end - start + 1),
        ...(m ? { "content-range": `bytes ${start}-${end}/${size}` } : {}),
      });
      createReadStream(file, { start, end }).pipe(res);
    };
    if (fromRunner) setTimeout(answer, runnerDelayMs);
    else answer();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
