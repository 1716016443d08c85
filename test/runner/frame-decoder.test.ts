/**
 * The frame decoder processes (media-runner/src/media/engine-worker/): long-lived node-av processes that decode a
 * video job's frame from bytes the runner hands them over IPC. They decode what the ffmpeg CLI decodes, a job that
 * hangs, crashes or bloats one costs that job only, they hold no socket but their IPC channel, and one process
 * serves one job at a time. An MP4 whose tables would make the demuxer allocate past the CLI's -max_alloc goes to
 * the CLI (decoder-limits.test.ts checks the hostile files end to end).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DecoderFailure, DecoderProcess, resolveNodeAv, type ByteReader } from "../../media-runner/src/media/engine-worker/decoder-process.ts";
import { DecoderPool } from "../../media-runner/src/media/engine-worker/pool.ts";
import { decoderMaxTrackSamples, mp4IndexFits } from "../../media-runner/src/media/engine-worker/mp4-index-gate.ts";
import { sourceReader } from "../../media-runner/src/media/engine-worker/source-reader.ts";
import { isCliFallback, workerFrame } from "../../media-runner/src/media/engine-worker/worker-frame.ts";
import { RemoteSource, defaultSourceLimits } from "../../media-runner/src/fetch/remote-source.ts";
import { systemResolver } from "../../media-runner/src/fetch/resolver.ts";
import { createSsrfAgent } from "../../media-runner/src/fetch/ssrf-agent.ts";
import type { UpstreamContext } from "../../media-runner/src/fetch/upstream.ts";
import type { DecodeJob } from "../../media-runner/src/media/engine-worker/protocol.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { processRequest, sharp, testConfig } from "../../testkit/runner/harness.ts";
import { buildApp } from "../../media-runner/src/app.ts";
import { engineNoNetworkProxy } from "../../media-runner/src/media/run-process.ts";
import { countingFfmpeg, fileReader, socketsOf } from "../../testkit/runner/frame-decoder.ts";
import type { RunnerApp } from "../../media-runner/src/app.ts";

const dir = inject("runnerFixturesDir");
const nodeAv = resolveNodeAv();
const job = (size: number, format: DecodeJob["format"], time = 0.4): Omit<DecodeJob, "type" | "id"> => ({
  size, format, time, mode: "keyframe-before", maxPx: 320, maxPixels: 50_000_000, threads: 1, maxPackets: 5_000,
  demuxerOptions: { probesize: "5000000", analyzeduration: "500000", max_streams: "128", protocol_whitelist: "none" },
});
const limits = { timeoutMs: 20_000 };

async function rawOf(base64: string) {
  const { data, info } = await sharp(Buffer.from(base64, "base64")).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function meanDifference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

describe.skipIf(nodeAv === null)("frame decoder processes", () => {
  describe("through the runner, against the ffmpeg CLI", () => {
    let origin: LoopbackOrigin;
    let on: RunnerApp;
    let off: RunnerApp;
    const ffmpegOn = countingFfmpeg();
    const ffmpegOff = countingFfmpeg();

    beforeAll(async () => {
      origin = await startLoopbackOrigin([dir]);
      const allow = { SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` };
      on = await buildApp({ config: testConfig(allow), binaries: { ffmpeg: ffmpegOn.path, ffprobe: "ffprobe" }, logger: false });
      off = await buildApp({ config: testConfig({ ...allow, RUNNER_FRAME_DECODER: "off" }), binaries: { ffmpeg: ffmpegOff.path, ffprobe: "ffprobe" }, logger: false });
    });
    afterAll(async () => {
      await on?.close();
      await off?.close();
      await origin?.close();
    });

    const frameJob = (app: RunnerApp, name: string, durationHint: number) =>
      processRequest(app, { url: `${origin.url}/files/${name}`, category: "video", stages: ["thumbnail", "placeholder"], durationHint });

    it.each([["h264-aac-moov-end.mp4", 4], ["h264-aac-faststart.mp4", 4], ["vp9-opus.webm", 3], ["long-moov-end.mp4", 30]])(
      "%s: the same picture as the ffmpeg CLI's, and no ffmpeg run", async (name, duration) => {
        const runsBefore = ffmpegOn.runs();
        const a = await frameJob(on, name, duration);
        const b = await frameJob(off, name, duration);
        expect(a.statusCode).toBe(200);
        expect(b.statusCode).toBe(200);
        expect(ffmpegOn.runs()).toBe(runsBefore);
        expect(ffmpegOff.runs()).toBeGreaterThan(0);
        const [x, y] = [await rawOf(a.json().thumbnail.base64), await rawOf(b.json().thumbnail.base64)];
        expect([x.width, x.height]).toEqual([y.width, y.height]);
        expect(meanDifference(x.data, y.data)).toBeLessThan(2);
        // The placeholder is made from those pixels: a hash of the same length (its components may round apart).
        expect(a.json().placeholder.value).toHaveLength(b.json().placeholder.value.length);
      });

    it("a truncated file answers as the CLI path does, and the next job gets its frame", async () => {
      for (const name of ["truncated.mp4", "truncated-30-moov-end.mp4", "header-only.mp4", "corrupt.mp4"]) {
        const a = await frameJob(on, name, 4);
        const b = await frameJob(off, name, 4);
        expect([name, a.statusCode]).toEqual([name, b.statusCode]);
        const next = await frameJob(on, "h264-aac-faststart.mp4", 4);
        expect(next.statusCode).toBe(200);
        expect(next.json().thumbnail.width).toBe(320);
      }
    });
  });

  describe("the frame step's choice (workerFrame), over the runner's own byte source", () => {
    let origin: LoopbackOrigin;
    let upstream: UpstreamContext;
    beforeAll(async () => {
      origin = await startLoopbackOrigin([dir]);
      const allowlist = testConfig({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` }).allowlist;
      upstream = { dispatcher: createSsrfAgent({ allowlist, resolve: systemResolver, connectTimeoutMs: 5_000 }), allowlist, maxRedirects: 3, fetchTimeoutMs: 5_000 };
    });
    afterAll(() => origin?.close());

    const opened = async (name: string) => {
      const source = new RemoteSource(new URL(`${origin.url}/files/${name}`), upstream, { ...defaultSourceLimits, maxSourceBytes: 64 * 1024 * 1024 });
      await source.open();
      return source;
    };
    const options = { maxPx: 320, maxPixels: 50_000_000, timeoutMs: 20_000 };

    it("a decoder's raster for MP4 and WebM; the CLI for a container it does not open", async () => {
      const pool = new DecoderPool(1, nodeAv!);
      try {
        for (const name of ["h264-aac-faststart.mp4", "vp9-opus.webm"]) {
          const raster = await workerFrame(pool, await opened(name), 0.4, "keyframe-before", options);
          expect(isCliFallback(raster)).toBe(false);
          expect(raster).toMatchObject({ width: 320 });
        }
        expect(await workerFrame(pool, await opened("tone.ogg"), 0.4, "keyframe-before", options)).toMatchObject({ cli: expect.stringContaining("container") });
      } finally {
        pool.close();
      }
    });

    it("a decoder killed mid-job hands the frame to the CLI with its reason, and the pool serves the next job", async () => {
      const pool = new DecoderPool(1, nodeAv!, 32 * 1024 * 1024); // below an idle decoder: killed at the first look
      try {
        const fallback = await workerFrame(pool, await opened("long-moov-end.mp4"), 3, "keyframe-before", options);
        expect(fallback).toMatchObject({ cli: expect.stringContaining("(memory)") });
      } finally {
        pool.close();
      }
      const healthy = new DecoderPool(1, nodeAv!);
      try {
        expect(await workerFrame(healthy, await opened("long-moov-end.mp4"), 3, "keyframe-before", options)).toMatchObject({ width: 320 });
      } finally {
        healthy.close();
      }
    });
  });

  describe("walls of one process", () => {
    it("decodes from the runner's bytes only: its only sockets are its IPC channel and stderr pipe (Unix), none opened while decoding, its http_proxy names nothing", async () => {
      const decoder = new DecoderProcess(nodeAv!);
      try {
        await decoder.ready;
        const file = fileReader(join(dir, "h264-aac-moov-end.mp4"));
        const idle = socketsOf(decoder.pid!);
        expect(idle).toEqual(["unix", "unix"]);
        let sockets: string[] = [];
        const read: ByteReader = (offset, length) => {
          sockets = socketsOf(decoder.pid!); // mid-decode: FFmpeg's libraries are open and reading
          return file.read(offset, length);
        };
        const outcome = await decoder.decode(job(file.size, "mov"), read, limits);
        expect(outcome).toMatchObject({ status: "frame", width: 320, height: 180 });
        expect(file.reads()).toBeGreaterThan(0);
        expect(sockets).toEqual(idle);
        expect(socketsOf(decoder.pid!)).toEqual(idle);
        expect(readFileSync(`/proc/${decoder.pid!}/environ`, "utf8").split("\0")).toContain(`http_proxy=${engineNoNetworkProxy}`);
      } finally {
        decoder.kill();
      }
    });

    it("one job at a time: a busy process refuses a second, a pool of one hands out no second process", async () => {
      const pool = new DecoderPool(1, nodeAv!);
      try {
        const first = await pool.acquire();
        expect(first).toBeDefined();
        expect(await pool.acquire()).toBeUndefined();
        const file = fileReader(join(dir, "vp9-opus.webm"));
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        const slow: ByteReader = async (offset, length) => {
          await gate;
          return file.read(offset, length);
        };
        const running = first!.decode(job(file.size, "matroska"), slow, limits);
        await expect(first!.decode(job(file.size, "matroska"), file.read, limits)).rejects.toBeInstanceOf(DecoderFailure);
        release();
        expect(await running).toMatchObject({ status: "frame" });
        pool.release(first!);
        expect(await pool.acquire()).toBe(first);
      } finally {
        pool.close();
      }
    });

    it("a hang past the time limit kills the process, fails that job as a timeout, and the next job succeeds", async () => {
      const pool = new DecoderPool(1, nodeAv!);
      try {
        const hung = (await pool.acquire())!;
        const file = fileReader(join(dir, "h264-aac-faststart.mp4"));
        const never: ByteReader = () => new Promise<Buffer>(() => {});
        await expect(hung.decode(job(file.size, "mov"), never, { timeoutMs: 300 })).rejects.toMatchObject({ code: "PROCESSING_TIMEOUT" });
        expect(hung.alive).toBe(false);
        pool.release(hung);
        const next = (await pool.acquire())!;
        expect(next).not.toBe(hung);
        expect(await next.decode(job(file.size, "mov"), file.read, limits)).toMatchObject({ status: "frame" });
        pool.release(next);
      } finally {
        pool.close();
      }
    });

    it("a crash mid-decode costs that job only (a DecoderFailure the runner answers with the CLI), and a fresh process takes the next", async () => {
      const pool = new DecoderPool(1, nodeAv!);
      try {
        const doomed = (await pool.acquire())!;
        const file = fileReader(join(dir, "h264-aac-moov-end.mp4"));
        const crashing: ByteReader = () => {
          process.kill(doomed.pid!, "SIGSEGV"); // what a decoder bug on a hostile file does
          return new Promise<Buffer>(() => {});
        };
        await expect(doomed.decode(job(file.size, "mov"), crashing, limits)).rejects.toMatchObject({ kind: "crash" });
        pool.release(doomed);
        const next = (await pool.acquire())!;
        expect(next.pid).not.toBe(doomed.pid);
        expect(await next.decode(job(file.size, "mov"), file.read, limits)).toMatchObject({ status: "frame", width: 320 });
        pool.release(next);
      } finally {
        pool.close();
      }
    });

    it("a process past its memory limit is killed during the job", async () => {
      // 32 MiB: below what an idle decoder holds, so the first reading of its memory stops it.
      const pool = new DecoderPool(1, nodeAv!, 32 * 1024 * 1024);
      try {
        const decoder = (await pool.acquire())!;
        const file = fileReader(join(dir, "h264-aac-moov-end.mp4"));
        const slow: ByteReader = (offset, length) => new Promise((resolve) => setTimeout(() => resolve(file.read(offset, length)), 100));
        await expect(decoder.decode(job(file.size, "mov"), slow, limits)).rejects.toMatchObject({ kind: "memory" });
        expect(decoder.alive).toBe(false);
      } finally {
        pool.close();
      }
    });

    it("the job's abort kills the process with the job's reason", async () => {
      const decoder = new DecoderProcess(nodeAv!);
      try {
        await decoder.ready;
        const controller = new AbortController();
        const file = fileReader(join(dir, "h264-aac-moov-end.mp4"));
        const read: ByteReader = () => {
          controller.abort(new Error("caller gone"));
          return new Promise<Buffer>(() => {});
        };
        await expect(decoder.decode(job(file.size, "mov"), read, { timeoutMs: 20_000, signal: controller.signal })).rejects.toMatchObject({ code: "PROCESSING_TIMEOUT" });
        expect(decoder.alive).toBe(false);
      } finally {
        decoder.kill();
      }
    });
  });
});

describe("the MP4 index gate", () => {
  const box = (type: string, ...parts: Buffer[]) => {
    const header = Buffer.alloc(8);
    header.writeUInt32BE(8 + parts.reduce((sum, part) => sum + part.length, 0));
    header.write(type, 4, "latin1");
    return Buffer.concat([header, ...parts]);
  };
  const words = (...values: number[]) => {
    const b = Buffer.alloc(4 * values.length);
    values.forEach((v, i) => b.writeUInt32BE(v, 4 * i));
    return b;
  };
  const moovWith = (stszCount: number, sttsRuns: number[]) => box("moov", box("trak", box("mdia", box("minf", box("stbl",
    box("stts", words(0, sttsRuns.length, ...sttsRuns.flatMap((count) => [count, 512]))),
    box("stsz", words(0, 1000, stszCount)),
  )))));

  it("passes tables within one -max_alloc of index entries, refuses one track declaring more", () => {
    expect(mp4IndexFits(moovWith(1_000, [1_000]))).toBe(true);
    expect(mp4IndexFits(moovWith(decoderMaxTrackSamples, [decoderMaxTrackSamples]))).toBe(true);
    expect(mp4IndexFits(moovWith(80_000_000, [1_000]))).toBe(false); // a constant sample size: no table, just the count
    expect(mp4IndexFits(moovWith(1_000, [4_000_000, 4_000_000]))).toBe(false);
  });
});

describe("the decoder's reads over the job's source", () => {
  /** A source of `size` zero bytes recording each read it is asked for. */
  const fakeSource = (size: number) => {
    const reads: [number, number][] = [];
    const source = {
      size,
      async *read(start: number, end: number) {
        reads.push([start, end]);
        yield Buffer.alloc(Math.min(end, size - 1) - start + 1);
      },
    };
    return { source: source as unknown as RemoteSource, reads };
  };
  const KB = 1024;

  it("pulls 64 KB after a seek, doubling spans while sequential, never more than 1 MB in one answer", async () => {
    const { source, reads } = fakeSource(8 * 1024 * KB);
    const read = sourceReader(source);
    expect((await read(0, 64 * KB)).length).toBe(64 * KB);
    expect((await read(64 * KB, 64 * KB)).length).toBe(64 * KB);
    expect((await read(128 * KB, 64 * KB)).length).toBe(64 * KB); // from the 128 KB span just read
    expect((await read(5000 * KB, 64 * KB)).length).toBe(64 * KB); // a seek: back to 64 KB
    expect((await read(0, 50 * 1024 * KB)).length).toBe(1024 * KB); // a short read, not 50 MB
    expect(reads.slice(0, 3)).toEqual([[0, 64 * KB - 1], [64 * KB, 192 * KB - 1], [5000 * KB, 5064 * KB - 1]]);
    expect(await read(8 * 1024 * KB, 10)).toHaveLength(0); // at the end
    await expect(read(-1, 10)).rejects.toThrow();
  });
});
