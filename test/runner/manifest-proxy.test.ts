/**
 * HLS through the runner's proxy: ffmpeg opens nested playlists, keys and segments only as rewritten proxy
 * URLs, each fetched with the SSRF checks; its protocol whitelist refuses file:, data: and concat:.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteSource, defaultSourceLimits } from "../../media-runner/src/fetch/remote-source.ts";
import { systemResolver } from "../../media-runner/src/fetch/resolver.ts";
import { createSsrfAgent } from "../../media-runner/src/fetch/ssrf-agent.ts";
import type { UpstreamContext } from "../../media-runner/src/fetch/upstream.ts";
import { runProcess } from "../../media-runner/src/media/run-process.ts";
import { hlsInputArgs, hlsProtocolWhitelist } from "../../media-runner/src/proxy/hls-input-args.ts";
import { rewriteHlsPlaylist } from "../../media-runner/src/proxy/manifest-rewrite.ts";
import { ManifestSessions } from "../../media-runner/src/proxy/manifest-session.ts";
import { RangeProxy } from "../../media-runner/src/proxy/range-proxy.ts";
import { RunnerError } from "../../media-runner/src/errors.ts";
import { startConnectionTrap, startLoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { generateStreamFixtures, streams, streamSeconds } from "../../testkit/stream-fixtures.ts";
import { testConfig } from "../../testkit/runner/harness.ts";

const dir = join(import.meta.dirname, "..", ".fixtures", "streams");
const hostile = join(dir, "hostile");
let origin: Awaited<ReturnType<typeof startLoopbackOrigin>>;
let trap: Awaited<ReturnType<typeof startConnectionTrap>>;
let proxy: RangeProxy;
let sessions: ManifestSessions;
let upstream: UpstreamContext;
let allowlist: ReturnType<typeof testConfig>["allowlist"];
const maxPixels = 40_000_000;

beforeAll(async () => {
  await generateStreamFixtures(dir);
  trap = await startConnectionTrap("127.0.0.1");
  origin = await startLoopbackOrigin([dir]);
  // The stream fixtures hold the static hostile playlists; this one needs the trap's port.
  const trapPlaylist = `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nhttp://127.0.0.1:${trap.port}/seg0.ts\n#EXT-X-ENDLIST\n`;
  await writeFile(join(hostile, "trap-segment.m3u8"), trapPlaylist);
  allowlist = testConfig({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` }).allowlist;
  const dispatcher = createSsrfAgent({ allowlist, resolve: systemResolver, connectTimeoutMs: 5_000 });
  upstream = { dispatcher, allowlist, maxRedirects: 3, fetchTimeoutMs: 5_000 };
  proxy = new RangeProxy();
  await proxy.start();
  sessions = new ManifestSessions(proxy);
}, 120_000);

afterAll(async () => {
  await proxy.stop();
  await origin.close();
  await trap.close();
});

function open(path: string, keepSegments?: number) {
  return sessions.open(new URL(`${origin.url}/media/${path}`), {
    upstream,
    allowlist,
    newSource: (url) => new RemoteSource(url, upstream, { ...defaultSourceLimits, maxSourceBytes: 50 * 1024 * 1024 }),
    ...(keepSegments !== undefined ? { keepSegments } : {}),
  });
}

/** ffprobe as a job runs it: killed when the session fails (the session's error is then the outcome). */
async function ffprobe(input: string, signal?: AbortSignal, httpProxy = proxy.baseUrl) {
  try {
    const result = await runProcess("ffprobe", ["-hide_banner", "-loglevel", "error", ...hlsInputArgs(maxPixels),
      "-print_format", "json", "-show_format", "-show_streams", input], { timeoutMs: 20_000, maxStdoutBytes: 1 << 20, httpProxy, ...(signal ? { signal } : {}) });
    return { code: result.code, stderr: result.stderr, json: result.code === 0 ? JSON.parse(result.stdout.toString()) as ProbeJson : undefined };
  } catch (error) {
    if (error instanceof RunnerError && error.code !== "PROCESSING_TIMEOUT") return { code: -1, stderr: error.message, json: undefined };
    throw error;
  }
}

async function ffprobeLocal(path: string) {
  const result = await runProcess("ffprobe", ["-hide_banner", "-loglevel", "error", "-allowed_extensions", "ALL",
    "-print_format", "json", "-show_format", "-show_streams", join(dir, path)], { timeoutMs: 20_000, maxStdoutBytes: 1 << 20 });
  return JSON.parse(result.stdout.toString()) as ProbeJson;
}

interface ProbeJson {
  format: { duration?: string };
  streams: { codec_type: string; codec_name: string; width?: number; height?: number }[];
}

async function frame(input: string) {
  return runProcess("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", ...hlsInputArgs(maxPixels),
    "-i", input, "-map", "0:v:0", "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "pipe:1"], { timeoutMs: 20_000, maxStdoutBytes: 16 << 20, httpProxy: proxy.baseUrl });
}

const originPaths = () => origin.stats.requests.map((r) => r.path);

describe("rewriting a playlist", () => {
  const base = new URL("https://cdn.example/v/index.m3u8");
  const register = (url: URL, role: string) => `http://127.0.0.1:1/${role}/${encodeURIComponent(url.href)}`;

  it("names only proxy URLs, for variants, renditions, keys, init sections and segments", async () => {
    const master = await readFile(join(dir, streams.hlsMaster), "utf8");
    const out = rewriteHlsPlaylist(master, { base, register });
    expect(out).not.toMatch(/^(?!#)(?!http:\/\/127\.0\.0\.1:1\/).+$/m);
    expect(out).toContain(`http://127.0.0.1:1/playlist/${encodeURIComponent("https://cdn.example/v/v0/index.m3u8")}`);
    expect(out).toMatch(/URI="http:\/\/127\.0\.0\.1:1\/playlist\//);
    const encrypted = rewriteHlsPlaylist(await readFile(join(dir, streams.encrypted), "utf8"), { base, register });
    expect(encrypted).toMatch(/#EXT-X-KEY:METHOD=AES-128,URI="http:\/\/127\.0\.0\.1:1\/key\/[^"]+",IV=0x0+/);
    const fmp4 = rewriteHlsPlaylist(await readFile(join(dir, streams.fmp4), "utf8"), { base, register });
    expect(fmp4).toContain(`#EXT-X-MAP:URI="http://127.0.0.1:1/init/${encodeURIComponent("https://cdn.example/v/init.mp4")}"`);
  });

  it("keeps the first segments of a live playlist and ends it there", async () => {
    const out = rewriteHlsPlaylist(await readFile(join(dir, streams.live), "utf8"), { base, register, keepSegments: 1 });
    expect(out.match(/#EXTINF/g)).toHaveLength(1);
    expect(out.trimEnd().endsWith("#EXT-X-ENDLIST")).toBe(true);
  });

  it("refuses file:, data: and concat: URIs, and drops URI-bearing tags it does not rewrite", () => {
    for (const uri of ["file:///etc/passwd", "concat:/a|/b", "data:video/mp2t;base64,AAAA"]) {
      expect(() => rewriteHlsPlaylist(`#EXTM3U\n#EXTINF:2,\n${uri}\n`, { base, register })).toThrow(RunnerError);
    }
    const out = rewriteHlsPlaylist('#EXTM3U\n#EXT-X-SESSION-DATA:DATA-ID="x",URI="http://10.0.0.1/x.json"\n#EXT-X-PRELOAD-HINT:TYPE=PART,URI="p.mp4"\n', { base, register });
    expect(out).toBe("#EXTM3U\n");
  });
});

describe("ffmpeg reading HLS through the proxy", () => {
  it("ffprobe through the proxy sees what it sees on the local files, and every byte comes from the origin via the proxy", async () => {
    origin.stats.requests.length = 0;
    const { url, session, release } = open(streams.hlsMaster);
    try {
      const probed = await ffprobe(url);
      expect(probed.code, probed.stderr).toBe(0);
      const local = await ffprobeLocal(streams.hlsMaster);
      const summary = (p: ProbeJson) => p.streams.map((s) => [s.codec_type, s.codec_name, s.width, s.height]).sort();
      expect(summary(probed.json!)).toEqual(summary(local));
      expect(Number(probed.json!.format.duration)).toBeCloseTo(Number(local.format.duration), 1);
      expect(session.failure).toBeUndefined();
      expect(originPaths().length).toBeGreaterThan(3);
      expect(originPaths().every((p) => p.startsWith("/media/hls/"))).toBe(true);
    } finally {
      release();
    }
  });

  it("decrypts an AES-128 stream with its key fetched through the proxy", async () => {
    const { url, session, release } = open(streams.encrypted);
    try {
      const probed = await ffprobe(url);
      expect(probed.code, probed.stderr).toBe(0);
      expect(Number(probed.json!.format.duration)).toBeCloseTo(streamSeconds, 0);
      expect(session.failure).toBeUndefined();
      const png = await frame(url);
      expect(png.code, png.stderr).toBe(0);
      expect(png.stdout.subarray(1, 4).toString()).toBe("PNG");
    } finally {
      release();
    }
  });

  it("a frame from the first fMP4 segment of a one-segment view reads only that segment and its init section", async () => {
    origin.stats.requests.length = 0;
    const { url, release } = open(streams.fmp4, 1);
    try {
      const png = await frame(url);
      expect(png.code, png.stderr).toBe(0);
      expect(png.stdout.subarray(1, 4).toString()).toBe("PNG");
      const files = new Set(originPaths().map((p) => p.split("/").pop()));
      expect(files).toEqual(new Set(["index.m3u8", "init.mp4", "seg0.m4s"]));
    } finally {
      release();
    }
  });

  it("a live playlist cut to one segment ends instead of being reloaded", async () => {
    const { url, release } = open(streams.live, 1);
    try {
      const png = await frame(url);
      expect(png.code, png.stderr).toBe(0);
    } finally {
      release();
    }
  });
});

describe("hostile playlists through the proxy", () => {
  for (const [name, code] of [
    ["file-segment.m3u8", "SSRF_BLOCKED"], ["concat-segment.m3u8", "SSRF_BLOCKED"], ["data-key.m3u8", "SSRF_BLOCKED"],
    ["private-segment.m3u8", "SSRF_BLOCKED"], ["trap-segment.m3u8", "SSRF_BLOCKED"], ["loop-a.m3u8", "UNSUPPORTED_MEDIA"],
  ] as const) {
    it(`${name} fails with ${code}, and ffmpeg opens nothing but the proxy`, async () => {
      const before = trap.connections();
      const { url, session, release } = open(`hostile/${name}`);
      try {
        const started = performance.now();
        const probed = await ffprobe(url, session.signal);
        // Ended by the refusal, not by the 20 s engine deadline.
        expect(performance.now() - started).toBeLessThan(10_000);
        expect(probed.code).not.toBe(0);
        expect(session.failure?.code).toBe(code);
        expect(trap.connections()).toBe(before);
      } finally {
        release();
      }
    });
  }

  it("the protocol whitelist alone refuses a file: segment in a playlist that reached ffmpeg unrewritten", async () => {
    expect(hlsProtocolWhitelist.split(",").sort()).toEqual(["crypto", "http", "tcp"]);
    // The origin as the engine's proxy: it serves absolute-form requests, so only the whitelist refuses here.
    const probed = await ffprobe(`${origin.url}/media/hostile/file-segment.m3u8`, undefined, origin.url);
    expect(probed.code).not.toBe(0);
  });
});
