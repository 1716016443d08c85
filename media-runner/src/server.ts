/**
 * Starts and stops the runner. Prints one line with the listening address (scripts and tests read it),
 * stops cleanly on SIGTERM/SIGINT, and with --exit-on-stdin-close also when its parent's pipe closes, so a
 * runner started by a test or a dev script cannot outlive it.
 */
import { buildApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { findBinaries } from "./media/binaries.ts";

async function main(): Promise<void> {
  const config = loadConfig();
  const binaries = findBinaries({
    ...(config.ffmpegPath ? { ffmpegPath: config.ffmpegPath } : {}),
    ...(config.ffprobePath ? { ffprobePath: config.ffprobePath } : {}),
    ...(process.env.PATH ? { pathVariable: process.env.PATH } : {}),
  });
  const app = await buildApp({ config, binaries });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const shownHost = config.host.includes(":") ? `[${config.host}]` : config.host;
  console.log(`media-runner listening on http://${shownHost}:${port} (ffmpeg: ${binaries.ffmpeg}, ffprobe: ${binaries.ffprobe})`);

  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`media-runner stopping (${why})`);
    // Closing waits for in-flight requests; a hard limit keeps shutdown bounded.
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    app.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  if (process.argv.includes("--exit-on-stdin-close")) {
    process.stdin.on("close", () => stop("stdin closed"));
    process.stdin.on("end", () => stop("stdin closed"));
    process.stdin.resume();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
