// What a caller sees, through the Worker and the runner the tests start, for raw H.264/HEVC byte streams (once
// taken for web pages), WAVE files of non-PCM format tags and Ogg video: the facts in fast, the thumbnail in full.
// Files from testkit/longtail-more-fixtures.ts, served by the loopback origin as application/octet-stream or
// their own type; the expected values are what ffprobe reads of them (test/unit/longtail-edge-more.test.ts
// compares the readers with ffprobe file by file).
import { describe, expect, it } from "vitest";
import { inspect, media } from "../../../testkit/worker/helpers.ts";

describe("raw H.264 / HEVC streams", () => {
  it.each([
    ["lt-raw-main.h264", "video/H264", { codec: "h264", profile: "Main", width: 176, height: 144, fps: 25 }, /codecs="avc1\.4D400B"/],
    ["lt-raw-main10.265", "video/H265", { codec: "hevc", profile: "Main 10", width: 200, height: 100, fps: 24, pixelFormat: "yuv420p10le" }, /codecs="hvc1\.2\.4\.L60\.90"/],
  ] as const)("%s: %s video with its SPS facts in fast, a thumbnail in full", async (file, mime, video, codecs) => {
    const url = media(file);
    const fast = await inspect(url, "profile=fast");
    expect(fast.status, JSON.stringify(fast.body)).toBe(200);
    expect(fast.body.data.identity.mime).toBe(mime);
    expect(fast.body.data.semantic.semanticType).toBe("video");
    expect(fast.body.data.metadata.video).toMatchObject(video);
    expect(fast.body.data.playback.codecs).toMatch(codecs);
    const full = await inspect(url, "profile=full");
    expect(full.status, JSON.stringify(full.body)).toBe(200);
    expect(full.body.processing.failedStages).toBeUndefined();
    expect(full.body.data.preview.thumbnail.dimensions).toMatch(/^\d+x\d+$/);
  }, 60_000);
});

describe("WAVE files of non-PCM format tags", () => {
  it.each([
    ["lt-ima-adpcm.wav", { codec: "adpcm_ima_wav", sampleRate: 22050, channels: 1 }, 1.574],
    ["lt-ms-adpcm.wav", { codec: "adpcm_ms", sampleRate: 22050, channels: 2 }, 1.515],
    ["lt-mulaw.wav", { codec: "pcm_mulaw", sampleRate: 8000, channels: 2, bitDepth: 8 }, 1.5],
    ["lt-mp3.wav", { codec: "mp3", sampleRate: 22050, channels: 1 }, 1.567],
    ["lt-float-ext.wav", { codec: "pcm_f32le", sampleRate: 22050, channels: 1, bitDepth: 32 }, 1.5],
  ] as const)("%s: codec, rate, channels and duration in fast", async (file, audio, seconds) => {
    const { status, body } = await inspect(media(file), "profile=fast");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.semantic.semanticType).toBe("audio");
    expect(body.data.metadata.audio).toMatchObject(audio);
    expect(body.data.metadata.audio.duration.seconds).toBeCloseTo(seconds, 2);
  });
});

describe("Ogg video", () => {
  it.each([
    ["lt-theora.ogv", { codec: "theora", width: 176, height: 144, fps: 25 }, 0.6],
    ["lt-vp8.ogv", { codec: "vp8", width: 176, height: 144, fps: 24 }, 0.625],
  ] as const)("%s: video with size, fps and duration in fast", async (file, video, seconds) => {
    const { status, body } = await inspect(media(file), "profile=fast");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.semantic.semanticType).toBe("video");
    expect(body.data.metadata.video).toMatchObject(video);
    expect(body.data.metadata.video.duration.seconds).toBeCloseTo(seconds, 2);
  });
});
