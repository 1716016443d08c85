/**
 * Manifest facts from streams made by ffmpeg (HLS with two variants and an audio group, DASH, live, AES-128,
 * fMP4, audio-only), checked against what ffprobe reads from the same manifests.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { Streaming } from "../../shared/shapes/streaming-page.ts";
import { inspectManifest, recognizeManifest, type FetchedManifest } from "../../worker/manifest/index.ts";
import { generateStreamFixtures, streams, streamSeconds } from "../../testkit/stream-fixtures.ts";

const dir = join(import.meta.dirname, "..", ".fixtures", "streams");
const origin = "https://media.example/";

/** Serves the fixtures folder as if it lived at `origin`, recording every URL asked for. */
function fixtureFetcher() {
  const asked: string[] = [];
  const fetch = async (url: string): Promise<FetchedManifest> => {
    asked.push(url);
    const path = new URL(url).pathname.slice(1);
    return { text: await readFile(join(dir, path), "utf8"), finalUrl: url };
  };
  return { asked, fetch };
}

async function load(path: string): Promise<FetchedManifest> {
  return { text: await readFile(join(dir, path), "utf8"), finalUrl: origin + path };
}

interface ProbeOutput {
  format: { duration?: string };
  programs: { tags?: { variant_bitrate?: string }; streams: { codec_type: string; width?: number; height?: number; tags?: { language?: string } }[] }[];
  streams: { codec_type: string; width?: number; height?: number; tags?: { language?: string } }[];
}

async function ffprobe(path: string, extra: string[] = []): Promise<ProbeOutput> {
  const { stdout } = await promisify(execFile)("ffprobe", [
    "-v", "error", ...extra, "-print_format", "json", "-show_format", "-show_programs", "-show_streams", join(dir, path),
  ]);
  return JSON.parse(stdout) as ProbeOutput;
}

beforeAll(async () => {
  await generateStreamFixtures(dir);
}, 120_000);

describe("HLS master with two variants and an audio group", () => {
  it("reports variants by bandwidth, the audio rendition and the VOD duration, as ffprobe reads them", async () => {
    const { fetch } = fixtureFetcher();
    const facts = await inspectManifest("hls", await load(streams.hlsMaster), fetch);
    expect(Streaming.parse(facts.streaming)).toEqual(facts.streaming);
    const probed = await ffprobe(streams.hlsMaster);
    const probedBandwidths = probed.programs.map((p) => Number(p.tags?.variant_bitrate)).sort((a, b) => a - b);
    expect(facts.streaming.variants.map((v) => v.bandwidth)).toEqual(probedBandwidths);
    const probedSizes = probed.programs
      .map((p) => ({ bw: Number(p.tags?.variant_bitrate), video: p.streams.find((s) => s.codec_type === "video") }))
      .sort((a, b) => a.bw - b.bw)
      .map((p) => [p.video?.width, p.video?.height]);
    expect(facts.streaming.variants.map((v) => [v.width, v.height])).toEqual(probedSizes);
    expect(facts.streaming.variants.every((v) => v.codecs?.startsWith("avc1."))).toBe(true);
    const audioLanguage = probed.streams.find((s) => s.codec_type === "audio")?.tags?.language;
    expect(facts.streaming.audio).toEqual([{ name: "audio_2", language: audioLanguage, codecs: "mp4a.40.2", default: true }]);
    expect(facts.durationSeconds).toBeCloseTo(Number(probed.format.duration), 1);
    expect(facts.durationSeconds).toBeCloseTo(streamSeconds, 1);
    expect(facts.streaming).toMatchObject({ protocol: "hls", live: false, encrypted: false, lowLatency: false, subtitles: [] });
    expect(facts.audioOnly).toBe(false);
  });

  it("reads exactly one media playlist, the lowest-bandwidth variant, and plans its first segment for previews", async () => {
    const { asked, fetch } = fixtureFetcher();
    const facts = await inspectManifest("hls", await load(streams.hlsMaster), fetch);
    expect(asked).toEqual([origin + streams.hlsLowVariant]);
    expect(facts.manifestsRead).toEqual([origin + streams.hlsMaster, origin + streams.hlsLowVariant]);
    expect(facts.preview).toEqual({ playlistUrl: origin + streams.hlsLowVariant, segmentUrl: origin + "hls/v1/seg0.ts" });
  });

  it("a lone media playlist is its own plan: no fetch, duration from its segments", async () => {
    const { asked, fetch } = fixtureFetcher();
    const facts = await inspectManifest("hls", await load(streams.hlsLowVariant), fetch);
    expect(asked).toEqual([]);
    expect(facts.durationSeconds).toBe(streamSeconds);
    expect(facts.streaming.variants).toEqual([]);
  });
});

describe("other HLS streams", () => {
  it("a live playlist (no EXT-X-ENDLIST) is live and has no duration", async () => {
    const facts = await inspectManifest("hls", await load(streams.live), fixtureFetcher().fetch);
    expect(facts.streaming.live).toBe(true);
    expect(facts.durationSeconds).toBeUndefined();
    expect(facts.preview?.segmentUrl).toBe(origin + "live/seg0.ts");
  });

  it("an AES-128 playlist is encrypted; its duration matches what ffprobe reads with the key", async () => {
    const facts = await inspectManifest("hls", await load(streams.encrypted), fixtureFetcher().fetch);
    expect(facts.streaming).toMatchObject({ encrypted: true, encryption: "AES-128", live: false });
    expect(facts.preview).toMatchObject({ segmentUrl: origin + "enc/seg0.ts", encryption: "AES-128" });
    const probed = await ffprobe(streams.encrypted, ["-allowed_extensions", "ALL"]);
    expect(facts.durationSeconds).toBeCloseTo(Number(probed.format.duration), 1);
  });

  it("fMP4 segments carry their initialisation section in the preview plan", async () => {
    const facts = await inspectManifest("hls", await load(streams.fmp4), fixtureFetcher().fetch);
    expect(facts.preview).toEqual({ playlistUrl: origin + streams.fmp4, segmentUrl: origin + "fmp4/seg0.m4s", initUrl: origin + "fmp4/init.mp4" });
    expect(facts.durationSeconds).toBeCloseTo(streamSeconds, 1);
  });

  it("an audio-only master is audio and plans no picture", async () => {
    const facts = await inspectManifest("hls", await load(streams.audioOnly), fixtureFetcher().fetch);
    expect(facts.audioOnly).toBe(true);
    expect(facts.preview).toBeUndefined();
    expect(facts.durationSeconds).toBeCloseTo(streamSeconds, 1);
  });
});

describe("DASH", () => {
  it("reports representations, the audio language and the presentation duration, as ffprobe reads them", async () => {
    const facts = await inspectManifest("dash", await load(streams.dash), fixtureFetcher().fetch);
    expect(Streaming.parse(facts.streaming)).toEqual(facts.streaming);
    const probed = await ffprobe(streams.dash);
    const probedVideo = probed.streams.filter((s) => s.codec_type === "video").map((s) => [s.width, s.height]);
    expect(facts.streaming.variants.map((v) => [v.width, v.height]).reverse()).toEqual(probedVideo);
    expect(facts.streaming.variants.map((v) => v.bandwidth)).toEqual([200_000, 600_000]);
    expect(facts.streaming.variants[0]).toMatchObject({ frameRate: 25, codecs: expect.stringMatching(/^avc1\./) });
    expect(facts.streaming.audio).toEqual([{ language: probed.streams.find((s) => s.codec_type === "audio")?.tags?.language, codecs: "mp4a.40.2" }]);
    expect(facts.durationSeconds).toBeCloseTo(Number(probed.format.duration), 1);
    expect(facts.streaming).toMatchObject({ protocol: "dash", live: false, encrypted: false, lowLatency: false });
  });

  it("plans the first segment of the lowest-bandwidth video representation with its init segment", async () => {
    const facts = await inspectManifest("dash", await load(streams.dash), fixtureFetcher().fetch);
    expect(facts.preview).toEqual({ segmentUrl: origin + "dash/chunk-stream1-00001.m4s", initUrl: origin + "dash/init-stream1.m4s" });
  });
});

describe("recognition", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  it("bytes win over Content-Type and extension", async () => {
    const hls = await readFile(join(dir, streams.hlsMaster));
    const mpd = await readFile(join(dir, streams.dash));
    expect(recognizeManifest(hls, "text/plain", "https://x/a.mpd")).toBe("hls");
    expect(recognizeManifest(mpd, "application/vnd.apple.mpegurl", "https://x/a.m3u8")).toBe("dash");
    expect(recognizeManifest(bytes("<!doctype html><html>"), "application/vnd.apple.mpegurl", "https://x/a.m3u8")).toBeUndefined();
    expect(recognizeManifest(new Uint8Array([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70]), "application/dash+xml")).toBeUndefined();
  });
  it("Content-Type or extension decide when the bytes say nothing", () => {
    expect(recognizeManifest(new Uint8Array(), "application/x-mpegURL")).toBe("hls");
    expect(recognizeManifest(new Uint8Array(), null, "https://x/live/stream.MPD?token=1")).toBe("dash");
    expect(recognizeManifest(new Uint8Array(), "video/mp4", "https://x/a.mp4")).toBeUndefined();
  });
  it("finds <MPD> after a BOM, an XML declaration and comments, with a namespace prefix", () => {
    expect(recognizeManifest(bytes('\uFEFF<?xml version="1.0"?>\n<!-- made by x -->\n<dash:MPD xmlns:dash="urn:mpeg:dash:schema:mpd:2011">'))).toBe("dash");
    expect(recognizeManifest(bytes('<?xml version="1.0"?><feed>'))).toBeUndefined();
  });
});
