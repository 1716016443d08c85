/**
 * Starts and stops the runner. Prints one line with the listening address (scripts and tests read it),
 * stops cleanly on SIGTERM/SIGINT, and with --exit-on-stdin-close also when its parent's pipe closes, so a
 * runner started by a test or a dev script cannot outlive it.
 */
import { buildApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { findBinaries } from "./media/binaries.ts";

/** After the grace period, answering the handed-back jobs and closing must not take longer than this. */
const forceExitMarginMs = 3_000;
/** How often idle keep-alive sockets are closed while shutting down. */
const idleSweepMs = 50;

async function main(): Promise<void> {
  const config = loadConfig();
  const binaries = findBinaries({
    ...(config.ffmpegPath ? { ffmpegPath: config.ffmpegPath } : {}),
    ...(config.ffprobePath ? { ffprobePath: config.ffprobePath } : {}),
    ...(process.env.PATH ? { pathVariable: process.env.PATH } : {}),
  });
  const app = await buildApp({ config, binaries });
  await app.listen({ port: config.port, host: config.host });
  // Signal handlers first: a SIGTERM right after the address line must already be graceful.
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    const grace = config.shutdownGraceMs;
    console.log(`media-runner stopping (${why}): ${app.shutdown.inFlight} job(s) in flight, up to ${grace} ms to finish`);
    // Running jobs get RUNNER_SHUTDOWN_GRACE_MS, then are handed back (503 + Retry-After) for the Worker to
    // retry; the hard limit after that only covers a stuck socket or hook.
    const force = setTimeout(() => process.exit(1), grace + forceExitMarginMs);
    force.unref();
    // Stop accepting connections now; in-flight requests keep their sockets until answered.
    const closed = app.close();
    // Keep-alive sockets of answered requests would hold close() open: close each one once it is idle.
    const sweep = setInterval(() => app.server.closeIdleConnections(), idleSweepMs);
    sweep.unref();
    app.shutdown
      .begin(grace)
      .then(() => closed)
      .then(() => process.exit(0), () => process.exit(1));
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  if (process.argv.includes("--exit-on-stdin-close")) {
    process.stdin.on("close", () => stop("stdin closed"));
    process.stdin.on("end", () => stop("stdin closed"));
    process.stdin.resume();
  }
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const shownHost = config.host.includes(":") ? `[${config.host}]` : config.host;
  console.log(`media-runner listening on http://${shownHost}:${port} (pid ${process.pid}; ffmpeg: ${binaries.ffmpeg}, ffprobe: ${binaries.ffprobe})`);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
