/**
 * The runner reads exactly (issue 22 item 4): each origin request is a round trip, so a reader that knows
 * what it needs gets it in one request. A bounded read is one request; an image's rest is one request; the
 * job's first request reaches the end of a moov the edge's head shows; a frame's keyframe is pulled, in one
 * request, from the sample tables while ffmpeg starts. Each case counts the origin's requests and ranges.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { RemoteSource, defaultSourceLimits, type SourceSeed } from "../../media-runner/src/fetch/remote-source.ts";
import { systemResolver } from "../../media-runner/src/fetch/resolver.ts";
import { createSsrfAgent } from "../../media-runner/src/fetch/ssrf-agent.ts";
import type { UpstreamContext } from "../../media-runner/src/fetch/upstream.ts";
import { moovEndFromHead, selectKeyframes } from "../../media-runner/src/media/mp4-keyframes.ts";
import { prefetchKeyframe, readMoov } from "../../media-runner/src/media/mp4-source.ts";
import { RunnerResponse, type RunnerHead } from "../../shared/shapes/runner.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { processRequest, testApp, testConfig } from "../../testkit/runner/harness.ts";
import { bigFaststart, makeBigFaststart } from "../../testkit/runner/fixtures.ts";

const dir = inject("runnerFixturesDir");
const B = defaultSourceLimits.blockBytes;
let origin: LoopbackOrigin;
let upstream: UpstreamContext;
let app: RunnerApp;

beforeAll(async () => {
  await makeBigFaststart(dir);
  origin = await startLoopbackOrigin([dir]);
  const allowlist = testConfig({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` }).allowlist;
  upstream = { dispatcher: createSsrfAgent({ allowlist, resolve: systemResolver, connectTimeoutMs: 5_000 }), allowlist, maxRedirects: 3, fetchTimeoutMs: 5_000 };
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
}, 120_000);
afterAll(async () => {
  await app.close();
  await origin.close();
});

/** [start, end] of every Range request the origin got since the last reset, in order. */
function ranges(): [number, number][] {
  return origin.stats.requests.map(({ headers: h }) => {
    const match = /^bytes=(\d+)-(\d*)$/.exec(h.range ?? "");
    return match ? [Number(match[1]), match[2] === "" ? Infinity : Number(match[2])] : [0, Infinity];
  });
}

function sourceOf(name: string, seed?: SourceSeed): RemoteSource {
  return new RemoteSource(new URL(`${origin.url}/files/${name}`), upstream, { ...defaultSourceLimits, maxSourceBytes: 64 * 1024 * 1024 }, seed);
}

async function drain(reads: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of reads) parts.push(part);
  return Buffer.concat(parts);
}

/** The validators the origin sends for a file (what the edge would have seen). */
async function validatorsOf(name: string): Promise<{ etag: string; lastModified: string }> {
  const res = await fetch(`${origin.url}/files/${name}`, { headers: { range: "bytes=0-0" } });
  await res.arrayBuffer();
  return { etag: res.headers.get("etag")!, lastModified: res.headers.get("last-modified")! };
}

async function headOf(name: string, bytes: number): Promise<RunnerHead> {
  const file = await readFile(join(dir, name));
  return { base64: file.subarray(0, bytes).toString("base64"), size: file.length, ...(await validatorsOf(name)) };
}

describe("RemoteSource reads", () => {
  it("a bounded read is one request; an open-ended one starts with a block and doubles", async () => {
    const file = await readFile(join(dir, bigFaststart));
    const source = sourceOf(bigFaststart);
    await source.open();
    origin.reset();
    const bytes = await drain(source.read(100_000, 400_000));
    expect(bytes.equals(file.subarray(100_000, 400_001))).toBe(true);
    expect(ranges()).toEqual([[B, 7 * B - 1]]);
    origin.reset();
    await drain(source.read(1_000_000, 1_000_000 + 3 * B));
    expect(ranges().length).toBe(1);
  });

  it("wholeRest reads all that is missing in one request", async () => {
    const file = await readFile(join(dir, "large.png"));
    const source = sourceOf("large.png");
    await source.open();
    origin.reset();
    const bytes = await drain(source.read(0, Infinity, { wholeRest: true }));
    expect(bytes.equals(file)).toBe(true);
    expect(ranges()).toEqual([[B, file.length - 1]]);
  });

  it("with the edge's head, the first request reaches firstEnd (and stops at the head's block without it)", async () => {
    const name = bigFaststart;
    const head = await headOf(name, 16 * 1024);
    const seed = { bytes: Buffer.from(head.base64, "base64"), size: head.size, etag: head.etag, lastModified: head.lastModified };
    origin.reset();
    await sourceOf(name, seed).open(300_000);
    expect(ranges()).toEqual([[16 * 1024, 5 * B - 1]]);
    origin.reset();
    await sourceOf(name, seed).open();
    expect(ranges()).toEqual([[16 * 1024, B - 1]]);
  });
});

describe("the edge's tail", () => {
  it("serves a moov-last file's end: the job never asks the origin for the bytes the edge read there", async () => {
    const name = "long-moov-end.mp4";
    const file = await readFile(join(dir, name));
    const head = await headOf(name, 16 * 1024);
    const tailOffset = file.length - 96 * 1024;
    const withTail = { ...head, tail: { offset: tailOffset, base64: file.subarray(tailOffset).toString("base64") } };
    for (const [h, asksTail] of [[withTail, false], [head, true]] as const) {
      origin.reset();
      const res = await processRequest(app, { url: `${origin.url}/files/${name}`, category: "video", stages: ["metadata", "thumbnail"], head: h });
      expect(res.statusCode).toBe(200);
      expect(RunnerResponse.parse(res.json()).thumbnail?.width).toBeGreaterThan(0);
      expect(ranges().some(([, end]) => end >= tailOffset)).toBe(asksTail);
    }
  });

  it("is refused when it does not end at the file's size (400)", async () => {
    const head = await headOf("long-moov-end.mp4", 16 * 1024);
    const res = await processRequest(app, {
      url: `${origin.url}/files/long-moov-end.mp4`, category: "video", stages: ["metadata"],
      head: { ...head, tail: { offset: head.size - 10, base64: Buffer.alloc(4).toString("base64") } },
    });
    expect(res.statusCode).toBe(400);
  });
});

describe("MP4 reads", () => {
  it("moovEndFromHead: the moov's end when the head reaches its header, nothing for a moov after the mdat", async () => {
    const faststart = await readFile(join(dir, bigFaststart));
    const source = sourceOf(bigFaststart);
    await source.open();
    const moov = (await readMoov(source, faststart.length))!;
    const at = faststart.indexOf(moov.subarray(0, 16));
    expect(moovEndFromHead(faststart.subarray(0, 16 * 1024), faststart.length)).toBe(at + moov.length);
    const moovEnd = await readFile(join(dir, "h264-aac-moov-end.mp4"));
    expect(moovEndFromHead(moovEnd.subarray(0, 16 * 1024), moovEnd.length)).toBeUndefined();
    const png = await readFile(join(dir, "large.png"));
    expect(moovEndFromHead(png.subarray(0, 16 * 1024), png.length)).toBeUndefined();
  });

  it("prefetchKeyframe pulls the keyframe at or before the time in one request; reads of it are then served", async () => {
    const name = bigFaststart;
    const file = await readFile(join(dir, name));
    const source = sourceOf(name);
    await source.open();
    const moov = (await readMoov(source, file.length))!;
    // 2 s GOPs: at 3.5 s the keyframe at or before is the one at 2 s (the nearest would be 4 s).
    const selection = selectKeyframes(moov, [3.5], file.length, "at-or-before")!;
    const keyframe = selection.keyframes[selection.pick[0]!]!;
    expect(keyframe.time).toBeCloseTo(2, 1);
    origin.reset();
    await prefetchKeyframe(source, 3.5);
    const got = ranges();
    expect(got.length).toBe(1);
    expect(got[0]![0]).toBeLessThanOrEqual(keyframe.offset);
    expect(got[0]![1]).toBeGreaterThanOrEqual(keyframe.offset + keyframe.size - 1);
    origin.reset();
    const bytes = await drain(source.read(keyframe.offset, keyframe.offset + keyframe.size - 1));
    expect(bytes.equals(file.subarray(keyframe.offset, keyframe.offset + keyframe.size))).toBe(true);
    expect(ranges()).toEqual([]);
  });

  it("prefetchKeyframe leaves a file that is not MP4 alone (one cached look at its first bytes)", async () => {
    const source = sourceOf("vp9-opus.webm");
    await source.open();
    origin.reset();
    await prefetchKeyframe(source, 1);
    expect(ranges()).toEqual([]);
  });
});

describe("jobs", () => {
  it("an image whose header the edge's head shows is read in the job's first and only request", async () => {
    const head = await headOf("large.png", 16 * 1024);
    origin.reset();
    const res = await processRequest(app, { url: `${origin.url}/files/large.png`, category: "image", stages: ["metadata", "thumbnail"], head });
    expect(res.statusCode).toBe(200);
    const result = RunnerResponse.parse(res.json());
    expect(result.thumbnail?.width).toBeGreaterThan(0);
    expect(ranges()).toEqual([[16 * 1024, head.size - 1]]);
  });

  it("a WebM video's first request reaches the bytes before the frame's time (ffmpeg reads them next)", async () => {
    const name = "vp9-opus.webm";
    const head = await headOf(name, 16 * 1024);
    origin.reset();
    const res = await processRequest(app, { url: `${origin.url}/files/${name}`, category: "video", stages: ["thumbnail"], durationHint: 3, head });
    expect(res.statusCode).toBe(200);
    expect(RunnerResponse.parse(res.json()).thumbnail?.width).toBeGreaterThan(0);
    // 10 % of the time at the mean rate, a quarter more, 64 KiB more: past the head's block, rounded to blocks.
    const wanted = Math.round(head.size * 0.1 * 1.25) + 64 * 1024;
    expect(ranges()[0]).toEqual([16 * 1024, Math.min(Math.ceil((wanted + 1) / B) * B, head.size) - 1]);
  });

  it("a picture over the pixel limit is still refused before the download, head or not", async () => {
    for (const head of [await headOf("bomb.png", 16 * 1024), undefined]) {
      origin.reset();
      const res = await processRequest(app, { url: `${origin.url}/files/bomb.png`, category: "image", stages: ["metadata", "thumbnail"], ...(head ? { head } : {}) });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe("IMAGE_TOO_LARGE");
      expect(origin.stats.bytes).toBeLessThanOrEqual(4 * B);
    }
  });
});
