/**
 * Issue 20, items 1 and 4: ffmpeg reaches nothing but the runner's proxy, whatever a playlist says. A trap
 * socket on a loopback port the runner may not fetch counts connections; every hostile playlist below names it,
 * hidden from an LF-splitting rewriter (CR, NUL), in a repeated or escaped attribute, in a dropped tag, in a
 * nested media playlist, or only for the runner's User-Agent. Each must fail the preview stages with the
 * refusal's reason and leave the trap at zero connections. The second wall (the engines' http_proxy, and the
 * proxy refusing every target but itself) is shown on its own by running ffmpeg on a playlist that names the
 * trap directly, bypassing the manifest model.
 */
import { execFile } from "node:child_process";
import { readFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { runProcess } from "../../media-runner/src/media/run-process.ts";
import { hlsInputArgs } from "../../media-runner/src/proxy/hls-input-args.ts";
import { RangeProxy } from "../../media-runner/src/proxy/range-proxy.ts";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { generateStreamFixtures } from "../../testkit/stream-fixtures.ts";
import { processRequest, testApp } from "../../testkit/runner/harness.ts";
import { startTrap, type Trap } from "../../testkit/runner/trap.ts";

const fixtures = join(import.meta.dirname, "..", ".fixtures", "streams");
const runnerAgent = "media-inspect-runner/1";
let trap: Trap;
let origin: Server;
let originUrl = "";
let app: RunnerApp;
let work: string;
const originSockets = new Set<import("node:net").Socket>();
/** Playlists by path; a function of the request's User-Agent for the cloaking origin. */
const playlists = new Map<string, string | ((agent: string) => string)>();

beforeAll(async () => {
  await generateStreamFixtures(fixtures);
  trap = await startTrap("127.0.0.1");
  // The origin: playlists from the map, media from the stream fixtures (whole, no Range: the proxy spools them).
  origin = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://origin").pathname;
    const playlist = playlists.get(path);
    if (playlist !== undefined) {
      const body = typeof playlist === "string" ? playlist : playlist(String(req.headers["user-agent"] ?? ""));
      res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
      return void res.end(body);
    }
    if (!path.startsWith("/media/") || path.includes("..")) return void res.writeHead(404).end();
    readFile(join(fixtures, path.slice("/media/".length))).then(
      (bytes) => res.writeHead(200, { "content-length": bytes.length }).end(bytes),
      () => res.writeHead(404).end(),
    );
  });
  origin.on("connection", (socket) => {
    originSockets.add(socket);
    socket.on("close", () => originSockets.delete(socket));
  });
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  // Only the origin's port is allowed: the trap's is a denied loopback address.
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${(origin.address() as AddressInfo).port}` });
  work = await mkdtemp(join(tmpdir(), "confinement-"));
}, 120_000);

afterAll(async () => {
  await app.close();
  // Keep-alive sockets (the test's own fetch, the runner's agent) would hold close() open.
  for (const socket of originSockets) socket.destroy();
  await new Promise<void>((resolve) => origin.close(() => resolve()));
  await trap.close();
  await rm(work, { recursive: true, force: true });
});

const t = () => `http://127.0.0.1:${trap.port}`;
const seg = () => `${originUrl}/media/hls/v1/seg0.ts`;

/** A stream job on the playlist at `path` (its thumbnail stage), as the Worker's plan would start it. */
async function preview(path: string) {
  const res = await processRequest(app, {
    url: `${originUrl}${path}`, category: "video", stages: ["thumbnail"],
    stream: { protocol: "hls", playlistUrl: `${originUrl}${path}`, segmentUrl: seg() },
  });
  expect(res.statusCode, res.body).toBe(200);
  return RunnerResponse.parse(res.json()).stages?.thumbnail;
}

async function expectRefused(path: string, text: string | ((agent: string) => string), reason: RegExp) {
  playlists.set(path, text);
  const before = trap.connections();
  const stage = await preview(path);
  expect(stage?.status).toBe("failed");
  expect(stage?.reason).toMatch(reason);
  expect(trap.connections() - before).toBe(0);
}

describe("a clean playlist still previews", () => {
  it("LF and CRLF line endings both give a thumbnail", async () => {
    const text = `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n${seg()}\n#EXT-X-ENDLIST\n`;
    playlists.set("/clean-lf.m3u8", text);
    playlists.set("/clean-crlf.m3u8", text.replace(/\n/g, "\r\n"));
    expect(await preview("/clean-lf.m3u8")).toEqual({ status: "done" });
    expect(await preview("/clean-crlf.m3u8")).toEqual({ status: "done" });
  });
});

describe("hostile playlists: the stage fails with the refusal, the trap sees nothing", () => {
  const head = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n";
  const tail = () => `#EXTINF:2,\n${seg()}\n#EXT-X-ENDLIST\n`;
  const cases: [string, () => string, RegExp][] = [
    ["CR-hidden segment", () => `${head}#X\r#EXTINF:2,\r${t()}/s.ts\n${tail()}`, /CORRUPT_MEDIA.*CR that does not end/],
    ["NUL-hidden segment", () => `${head}#X\0#EXTINF:2,\0${t()}/s.ts\n${tail()}`, /CORRUPT_MEDIA.*NUL/],
    ["LF: a visible trap segment", () => `${head}#EXTINF:2,\n${t()}/s.ts\n#EXT-X-ENDLIST\n`, /SSRF_BLOCKED/],
    ["EXT-X-MAP duplicate URI", () => `${head}#EXT-X-MAP:URI="${originUrl}/media/fmp4/init.mp4",URI="${t()}/x"\n${tail()}`, /CORRUPT_MEDIA.*appears twice/],
    ["EXT-X-MAP escaped quote", () => `${head}#EXT-X-MAP:URI="a\\",URI=${t()}/x"\n${tail()}`, /CORRUPT_MEDIA/],
    ["EXT-X-MAP odd-case name", () => `${head}#EXT-X-MAP:URI="init.mp4",Uri="${t()}/x"\n${tail()}`, /CORRUPT_MEDIA/],
    ["EXT-X-KEY duplicate URI", () => `${head}#EXT-X-KEY:METHOD=AES-128,URI="${originUrl}/media/enc/key.bin",URI="${t()}/k"\n${tail()}`, /CORRUPT_MEDIA.*appears twice/],
    ["EXT-X-SESSION-KEY duplicate URI", () => `${head}#EXT-X-SESSION-KEY:METHOD=AES-128,URI="k",URI="${t()}/k"\n${tail()}`, /CORRUPT_MEDIA/],
    ["EXT-X-PRELOAD-HINT duplicate URI", () => `${head}#EXT-X-PRELOAD-HINT:TYPE=PART,URI="p",URI="${t()}/p"\n${tail()}`, /CORRUPT_MEDIA/],
    ["EXT-X-PART duplicate URI", () => `${head}#EXT-X-PART:DURATION=1,URI="p",URI="${t()}/p"\n${tail()}`, /CORRUPT_MEDIA/],
    ["EXT-X-MEDIA duplicate URI (master)", () => `#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="x",URI="a.m3u8",URI="${t()}/a.m3u8"\n#EXT-X-STREAM-INF:BANDWIDTH=1,AUDIO="a"\n${originUrl}/clean-lf.m3u8\n`, /CORRUPT_MEDIA/],
    ["EXT-X-I-FRAME-STREAM-INF duplicate URI (master)", () => `#EXTM3U\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI="i.m3u8",URI="${t()}/i.m3u8"\n#EXT-X-STREAM-INF:BANDWIDTH=1\n${originUrl}/clean-lf.m3u8\n`, /CORRUPT_MEDIA/],
  ];
  for (const [name, text, reason] of cases) {
    it(name, async () => {
      await expectRefused(`/hostile/${name.replace(/\W+/g, "-")}.m3u8`, text(), reason);
    });
  }

  it("nested: a clean master naming a CR-hidden media playlist", async () => {
    playlists.set("/nested/media.m3u8", `${head}#X\r#EXTINF:2,\r${t()}/s.ts\n${tail()}`);
    await expectRefused("/nested/master.m3u8", `#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\n${originUrl}/nested/media.m3u8\n`, /CORRUPT_MEDIA.*CR/);
  });

  it("User-Agent cloaking: the Worker's agent gets a clean playlist, the runner's a duplicate-URI one", async () => {
    const cloaked = (agent: string) => agent === runnerAgent
      ? `${head}#EXT-X-MAP:URI="${originUrl}/media/fmp4/init.mp4",URI="${t()}/x"\n${tail()}`
      : `${head}${tail()}`;
    playlists.set("/cloaked.m3u8", cloaked);
    // What another client (the Worker's manifest read) is served: nothing hostile in it.
    const seen = await fetch(`${originUrl}/cloaked.m3u8`, { headers: { "user-agent": "media-inspect-worker/1" } }).then((r) => r.text());
    expect(seen).not.toContain(String(trap.port));
    await expectRefused("/cloaked.m3u8", cloaked, /CORRUPT_MEDIA.*appears twice/);
  });

  it("2,000 CR-hidden variants in a 150 KB playlist: refused at the first, zero trap connections", async () => {
    const hidden = Array.from({ length: 2_000 }, (_, i) => `#X\r#EXT-X-STREAM-INF:BANDWIDTH=1\r${t()}/${i}.m3u8\r#EXT-X-STREAM-INF:BANDWIDTH=1\r${t()}/b${i}.m3u8`);
    const text = `#EXTM3U\n${hidden.join("\n")}\n`;
    expect(text.length).toBeGreaterThan(150_000);
    const started = performance.now();
    await expectRefused("/many-hidden.m3u8", text, /CORRUPT_MEDIA.*CR/);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe("the second wall: engines reach the world only through the proxy, which refuses every other target", () => {
  let proxy: RangeProxy;
  beforeAll(async () => {
    proxy = new RangeProxy();
    await proxy.start();
  });
  afterAll(() => proxy.stop());

  /** A playlist that reached ffmpeg around the model: a local file naming the trap (segment, key, init, variant). */
  async function bypass(text: string) {
    const file = join(work, `bypass-${Math.random().toString(36).slice(2)}.m3u8`);
    await writeFile(file, text);
    return ["-hide_banner", "-nostdin", "-loglevel", "error", ...hlsInputArgs(40_000_000).map((a) => (a === "http,tcp,crypto" ? "file,http,tcp,crypto" : a)),
      "-allowed_extensions", "ALL", "-i", file, "-frames:v", "1", "-f", "null", "-"];
  }
  const bypassPlaylists = () => [
    `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n${t()}/s.ts\n#EXT-X-ENDLIST\n`,
    `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI="${t()}/k"\n#EXTINF:2,\n${t()}/s.ts\n#EXT-X-ENDLIST\n`,
    `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI="${t()}/init.mp4"\n#EXTINF:2,\n${t()}/s.m4s\n#EXT-X-ENDLIST\n`,
    `#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n${t()}/v.m3u8\n`,
  ];

  it("ffmpeg given a playlist naming the trap directly opens no connection to it: the proxy refuses each target", async () => {
    for (const text of bypassPlaylists()) {
      const before = trap.connections();
      const refusedBefore = proxy.refusedTargets;
      const result = await runProcess("ffmpeg", await bypass(text), { timeoutMs: 20_000, maxStdoutBytes: 1 << 20, httpProxy: proxy.baseUrl });
      expect(result.code).not.toBe(0);
      expect(trap.connections() - before).toBe(0);
      expect(proxy.refusedTargets).toBeGreaterThan(refusedBefore);
    }
  });

  it("an engine run with no proxy given can open no HTTP connection at all", async () => {
    const before = trap.connections();
    const result = await runProcess("ffmpeg", await bypass(bypassPlaylists()[0]!), { timeoutMs: 20_000, maxStdoutBytes: 1 << 20 });
    expect(result.code).not.toBe(0);
    expect(trap.connections() - before).toBe(0);
  });

  it("no_proxy in the runner's environment does not exempt the trap", async () => {
    const saved = { no_proxy: process.env.no_proxy, NO_PROXY: process.env.NO_PROXY };
    process.env.no_proxy = process.env.NO_PROXY = "127.0.0.1,localhost,*";
    try {
      const before = trap.connections();
      await runProcess("ffmpeg", await bypass(bypassPlaylists()[0]!), { timeoutMs: 20_000, maxStdoutBytes: 1 << 20, httpProxy: proxy.baseUrl });
      expect(trap.connections() - before).toBe(0);
    } finally {
      for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name]; else process.env[name] = value;
    }
  });

  it("control: the same ffmpeg without the proxy environment does dial the trap (the check above can fail)", async () => {
    const before = trap.connections();
    const env = { PATH: process.env.PATH ?? "" };
    await promisify(execFile)("ffmpeg", await bypass(bypassPlaylists()[0]!), { env, timeout: 20_000 }).catch(() => undefined);
    expect(trap.connections() - before).toBeGreaterThan(0);
  });

  it("the proxy answers 403 to an absolute-form target elsewhere and to CONNECT, and serves its own absolute-form URLs", async () => {
    const port = Number(new URL(proxy.baseUrl).port);
    const ask = (path: string, method = "GET") => new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port, method, path }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
    const before = trap.connections();
    expect(await ask(`${t()}/x`)).toBe(403);
    expect(await ask(`http://user@${proxy.baseUrl.slice(7)}/source/x`)).toBe(403);
    expect(await ask(`${proxy.baseUrl}/source/unknown`)).toBe(404); // its own target: an unknown id
    const tunnel = await new Promise<string>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(`CONNECT 127.0.0.1:${trap.port} HTTP/1.1\r\nhost: x\r\n\r\n`));
      let text = "";
      socket.on("data", (chunk) => { text += chunk.toString(); });
      socket.on("close", () => resolve(text));
    });
    expect(tunnel).toMatch(/^HTTP\/1\.1 403/);
    expect(trap.connections() - before).toBe(0);
  });
});
