import { join } from "node:path";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { RunnerResponse, RunnerErrorBody } from "../../shared/shapes/runner.ts";
import { decodeThumbnail, ffprobeFile, processRequest, testApp } from "../../testkit/runner/harness.ts";

const origin = inject("runnerOriginUrl");
const dir = inject("runnerFixturesDir");
let app: RunnerApp;

beforeAll(async () => {
  app = await testApp({ SSRF_ALLOWLIST: new URL(origin).host });
});
afterAll(() => app.close());

const num = (value: unknown) => Number(value);
const rate = (value: unknown) => {
  const [n, d] = String(value).split("/").map(Number);
  return n! / d!;
};

type Stage = "metadata" | "thumbnail" | "placeholder" | "palette";
async function processOk(name: string, category: "video" | "audio", stages: readonly Stage[] = ["metadata", "thumbnail", "placeholder", "palette"]) {
  const res = await processRequest(app, { url: `${origin}/files/${name}`, category, stages: [...stages] });
  expect(res.statusCode, res.body).toBe(200);
  return RunnerResponse.parse(res.json());
}

describe("video metadata matches ffprobe's own numbers", () => {
  for (const [name, codec, width, height, seconds] of [
    ["h264-aac-faststart.mp4", "h264", 640, 360, 4],
    ["h264-aac-moov-end.mp4", "h264", 640, 360, 4],
    ["vp9-opus.webm", "vp9", 320, 240, 3],
    ["no-audio.mp4", "h264", 480, 270, 2],
  ] as const) {
    it(`${name}: duration, fps, bitrate, size and codec`, async () => {
      const result = await processOk(name, "video");
      const probe = await ffprobeFile(join(dir, name));
      const stream = probe.streams.find((s) => s.codec_type === "video")!;
      const video = result.metadata?.video;
      expect(video?.codec).toBe(codec);
      expect(video?.codec).toBe(stream.codec_name);
      expect([video?.width, video?.height]).toEqual([width, height]);
      expect([video?.width, video?.height]).toEqual([stream.width, stream.height]);
      expect(video?.duration?.seconds).toBeCloseTo(num(probe.format.duration), 2);
      expect(video?.duration?.seconds).toBeCloseTo(seconds, 0);
      expect(video?.duration?.formatted).toBe(`0:0${seconds}`);
      expect(video?.fps).toBeCloseTo(rate(stream.avg_frame_rate), 2);
      expect(video?.fps).toBeCloseTo(25, 1);
      expect(video?.bitrate?.bps).toBe(num(probe.format.bit_rate));
      expect(video?.bitrate?.formatted).toMatch(/^\d+(\.\d)? (kbps|Mbps)$/);
      expect(result.metadata?.audio).toBeUndefined();
    });
  }

  it("a one-frame video still gives metadata and a thumbnail", async () => {
    const result = await processOk("one-frame.mp4", "video");
    expect([result.metadata?.video?.width, result.metadata?.video?.height]).toEqual([320, 240]);
    const thumb = await decodeThumbnail(result.thumbnail!.base64);
    expect([thumb.width, thumb.height]).toEqual([320, 240]);
    expect(thumb.brightness).toBeGreaterThan(30);
  });
});

describe("video previews", () => {
  it("returns a WebP thumbnail that decodes to the stated size and is not black", async () => {
    const result = await processOk("h264-aac-moov-end.mp4", "video");
    const thumb = result.thumbnail!;
    expect(thumb.contentType).toBe("image/webp");
    expect([thumb.width, thumb.height]).toEqual([320, 180]);
    const decoded = await decodeThumbnail(thumb.base64);
    expect(decoded.format).toBe("webp");
    expect([decoded.width, decoded.height]).toEqual([320, 180]);
    expect(decoded.brightness).toBeGreaterThan(30);
    expect(result.placeholder?.type).toBe("blurhash");
    expect(result.placeholder?.value).toMatch(/^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{20,}$/);
    expect(result.dominantColor).toMatch(/^#[0-9a-f]{6}$/);
    expect(result.timings.total).toBeGreaterThan(0);
  });

  it("honours thumbnailMaxPx and never upscales", async () => {
    const small = await processRequest(app, { url: `${origin}/files/vp9-opus.webm`, category: "video", stages: ["thumbnail"], thumbnailMaxPx: 100 });
    expect(RunnerResponse.parse(small.json()).thumbnail).toMatchObject({ width: 100, height: 75 });
    const big = await processRequest(app, { url: `${origin}/files/vp9-opus.webm`, category: "video", stages: ["thumbnail"], thumbnailMaxPx: 1000 });
    expect(RunnerResponse.parse(big.json()).thumbnail).toMatchObject({ width: 320, height: 240 });
  });

  it("skips a black first keyframe: a video fading in from black still gets a visible thumbnail", async () => {
    const result = await processOk("black-intro.mp4", "video", ["thumbnail"]);
    const decoded = await decodeThumbnail(result.thumbnail!.base64);
    expect(decoded.brightness).toBeGreaterThan(15);
  });

  it("only runs the stages asked for", async () => {
    const result = await processOk("h264-aac-faststart.mp4", "video", ["metadata"]);
    expect(result.metadata?.video).toBeDefined();
    expect(result.thumbnail).toBeUndefined();
    expect(result.placeholder).toBeUndefined();
    expect(result.dominantColor).toBeUndefined();
    expect(result.timings.frame).toBeUndefined();
  });
});

describe("audio metadata matches ffprobe's own numbers", () => {
  for (const [name, codec, sampleRate, channels] of [
    ["tone.mp3", "mp3", 44100, 2],
    ["tone.flac", "flac", 44100, 1],
    ["tone.ogg", "vorbis", 44100, 2],
    ["tone.wav", "pcm_s16le", 22050, 1],
    ["vp9-opus.webm", "opus", 48000, 1],
  ] as const) {
    it(`${name}: duration, bitrate, sample rate, channels and codec; no visual stages`, async () => {
      const result = await processOk(name, "audio");
      const probe = await ffprobeFile(join(dir, name));
      const stream = probe.streams.find((s) => s.codec_type === "audio")!;
      const audio = result.metadata?.audio;
      expect(audio?.codec).toBe(codec);
      expect(audio?.sampleRate).toBe(sampleRate);
      expect(audio?.sampleRate).toBe(num(stream.sample_rate));
      expect(audio?.channels).toBe(channels);
      expect(audio?.channels).toBe(stream.channels);
      expect(audio?.duration?.seconds).toBeCloseTo(num(probe.format.duration), 2);
      expect(audio?.duration?.formatted).toBe("0:03");
      const expectedBps = num(stream.bit_rate) || num(probe.format.bit_rate);
      expect(audio?.bitrate?.bps).toBe(Math.round(expectedBps));
      expect(result.thumbnail).toBeUndefined();
      expect(result.dominantColor).toBeUndefined();
    });
  }
});

describe("unreadable media", () => {
  for (const [name, category, code] of [
    ["corrupt.mp4", "video", "CORRUPT_MEDIA"],
    ["truncated.mp4", "video", "CORRUPT_MEDIA"],
    // Cut at 30 % with the index at the end: ffprobe reads nothing, so nothing can be reported.
    ["truncated-30-moov-end.mp4", "video", "CORRUPT_MEDIA"],
  ] as const) {
    it(`${name} as ${category} gives 422 ${code}`, async () => {
      const res = await processRequest(app, { url: `${origin}/files/${name}`, category, stages: ["metadata", "thumbnail"] });
      expect(res.statusCode).toBe(422);
      expect(RunnerErrorBody.parse(res.json()).error.code).toBe(code);
    });
  }
});

describe("metadata and previews end independently", () => {
  it("an MP4 whose index is readable but whose frames are not keeps ffprobe's duration, fps, bitrate and codec", async () => {
    const result = await processOk("header-only.mp4", "video");
    const probe = await ffprobeFile(join(dir, "header-only.mp4"));
    const stream = probe.streams.find((s) => s.codec_type === "video")!;
    const video = result.metadata?.video;
    expect(video?.codec).toBe(stream.codec_name);
    expect(video?.duration?.seconds).toBeCloseTo(num(probe.format.duration), 2);
    expect(video?.fps).toBeCloseTo(rate(stream.avg_frame_rate), 2);
    expect(video?.bitrate?.bps).toBeGreaterThan(0);
    expect(result.stages?.metadata).toEqual({ status: "done" });
    for (const stage of ["thumbnail", "placeholder", "palette"] as const) {
      expect(result.stages?.[stage]?.status).toBe("failed");
      expect(result.stages?.[stage]?.reason).toMatch(/^CORRUPT_MEDIA: /);
    }
    expect(result.thumbnail).toBeUndefined();
    expect(result.placeholder).toBeUndefined();
  });

  it("an MP4 cut at 30 % with moov first still reports the whole file's metadata", async () => {
    const result = await processOk("truncated-30-faststart.mp4", "video");
    const probe = await ffprobeFile(join(dir, "h264-aac-faststart.mp4"));
    expect(result.metadata?.video?.duration?.seconds).toBeCloseTo(num(probe.format.duration), 1);
    expect(result.metadata?.video?.codec).toBe("h264");
    expect(result.stages?.metadata).toEqual({ status: "done" });
    // The frame at 10 % lies in the bytes that remain: either it decodes, or the stage says why not.
    const thumb = result.stages?.thumbnail;
    expect(thumb?.status === "done" ? result.thumbnail : thumb?.reason).toBeTruthy();
  });
});

describe("the streams decide the category", () => {
  it("an MP3 asked for as video answers as audio, with audio metadata and the previews skipped", async () => {
    const result = await processOk("tone.mp3", "video");
    expect(result.detected).toEqual({ category: "audio", source: "ffprobe" });
    expect(result.metadata?.audio?.codec).toBe("mp3");
    expect(result.metadata?.video).toBeUndefined();
    expect(result.stages?.thumbnail?.status).toBe("skipped");
    expect(result.thumbnail).toBeUndefined();
  });

  it("a silent MP4 asked for as audio answers as video, with video metadata", async () => {
    const result = await processOk("no-audio.mp4", "audio", ["metadata"]);
    expect(result.detected).toEqual({ category: "video", source: "ffprobe" });
    expect([result.metadata?.video?.width, result.metadata?.video?.height]).toEqual([480, 270]);
    expect(result.metadata?.audio).toBeUndefined();
  });
});
