/**
 * What the engines' http_proxy wall costs: one-frame ffmpeg runs on a proxied MP4 and HLS
 * previews through a manifest session, with the runner's proxy as the engine's HTTP proxy (absolute-form
 * requests, as the runner runs them) and, for comparison, connecting to the proxy directly (origin-form, the
 * previous behaviour). Runs alternate between the two so load on a shared machine hits both alike; prints the
 * median and p90 wall time of each. Loopback only.
 *
 *   unshare -n bash -c 'ip link set lo up && media-runner/node_modules/.bin/tsx bench/engine-http-proxy.ts --count=20'
 */
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { promisify } from "node:util";
import { RemoteSource, defaultSourceLimits } from "../media-runner/src/fetch/remote-source.ts";
import { systemResolver } from "../media-runner/src/fetch/resolver.ts";
import { createSsrfAgent } from "../media-runner/src/fetch/ssrf-agent.ts";
import type { UpstreamContext } from "../media-runner/src/fetch/upstream.ts";
import { engineEnvironment, limitedCommand } from "../media-runner/src/media/run-process.ts";
import { engineAddressSpaceBytes } from "../media-runner/src/media/engine-limits.ts";
import { safeInputArgs } from "../media-runner/src/media/engine-args.ts";
import { hlsInputArgs } from "../media-runner/src/proxy/hls-input-args.ts";
import { ManifestSessions } from "../media-runner/src/proxy/manifest-session.ts";
import { RangeProxy } from "../media-runner/src/proxy/range-proxy.ts";
import { loadConfig } from "../media-runner/src/config.ts";
import { startLoopbackOrigin } from "../testkit/loopback-origin.ts";
import { generateStreamFixtures, streams } from "../testkit/stream-fixtures.ts";

const { values } = parseArgs({ options: { count: { type: "string", default: "20" } } });
const count = Math.min(Number(values.count), 200);

const dir = await mkdtemp(join(tmpdir(), "engine-proxy-"));
const fixtures = join(import.meta.dirname, "..", "test", ".fixtures", "streams");
await generateStreamFixtures(fixtures);
await promisify(execFile)("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25:duration=10",
  "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-movflags", "+faststart", join(dir, "clip.mp4")]);
const origin = await startLoopbackOrigin([dir, fixtures]);
const allowlist = loadConfig({ RUNNER_TOKEN: "bench-token-0123456789abcdef", SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` }).allowlist;
const upstream: UpstreamContext = {
  dispatcher: createSsrfAgent({ allowlist, resolve: systemResolver, connectTimeoutMs: 5_000 }), allowlist, maxRedirects: 3, fetchTimeoutMs: 10_000,
};
const proxy = new RangeProxy();
await proxy.start();
const sessions = new ManifestSessions(proxy);
const newSource = (url: URL) => new RemoteSource(url, upstream, { ...defaultSourceLimits, maxSourceBytes: 100 * 1024 * 1024 });

/** One ffmpeg frame run, timed; `proxied` sets the engine's http_proxy to the proxy as the runner does. */
function frame(input: string, inputArgs: string[], proxied: boolean): Promise<number> {
  const args = ["-hide_banner", "-nostdin", "-loglevel", "error", ...inputArgs, "-ss", "1", "-i", input, "-frames:v", "1",
    "-vf", "scale=320:-2", "-f", "image2pipe", "-c:v", "png", "pipe:1"];
  const [file, argv] = limitedCommand("ffmpeg", args, engineAddressSpaceBytes());
  const env = proxied ? engineEnvironment(proxy.baseUrl) : { PATH: process.env.PATH ?? "" };
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => { stderr += chunk; });
    child.once("close", (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(stderr))));
  });
}

const stat = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return `median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, p90 ${sorted[Math.floor(sorted.length * 0.9)]!.toFixed(1)} ms`;
};

const kinds = {
  "plain MP4 frame": async (proxied: boolean) => {
    const source = newSource(new URL(`${origin.url}/media/clip.mp4`));
    await source.open();
    const registration = proxy.register(source);
    try {
      return await frame(registration.url, safeInputArgs(50_000_000), proxied);
    } finally {
      registration.release();
    }
  },
  "HLS preview frame": async (proxied: boolean) => {
    const opened = sessions.open(new URL(`${origin.url}/media/${streams.hlsLowVariant}`), { upstream, allowlist, newSource, keepSegments: 1 });
    try {
      return await frame(opened.url, hlsInputArgs(50_000_000), proxied);
    } finally {
      opened.release();
    }
  },
};

for (const [name, run] of Object.entries(kinds)) {
  await run(true); // warm-up: page cache, first spawn
  const times: Record<"direct" | "proxied", number[]> = { direct: [], proxied: [] };
  for (let i = 0; i < count; i++) {
    times.direct.push(await run(false));
    times.proxied.push(await run(true));
  }
  console.log(`${name}, ${count} runs each: direct ${stat(times.direct)}; http_proxy ${stat(times.proxied)}`);
}
console.log(`proxy refused ${proxy.refusedTargets} targets`);
await proxy.stop();
await origin.close();
await rm(dir, { recursive: true, force: true });
