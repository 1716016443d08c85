// Issue 13: HLS playlists and DASH manifests through the Worker, over the ffmpeg-made streams the loopback
// origin serves (testkit/stream-fixtures.ts). The facts themselves are checked against ffprobe in
// test/unit/manifest-streams.test.ts; here: the API answer, what was fetched, and hostile manifests.
import { describe, expect, it } from "vitest";
import { inspect, media, originStats } from "../../../testkit/worker/helpers.ts";

const deadlineMs = 2_000; // FETCH_TIMEOUT_MS in vitest.config.ts

async function requestedPaths(nonce: string): Promise<string[]> {
  return (await originStats()).requests.filter((r) => r.path.includes(nonce) || !r.path.includes("?")).map((r) => r.path.split("?")[0]!);
}

describe("HLS", () => {
  it("a master playlist is video described by its manifest: variants, audio group, duration, playback", async () => {
    const { status, body } = await inspect(media("hls/master.m3u8"), "profile=fast");
    expect(status).toBe(200);
    expect(body.data.identity.mime).toBe("application/vnd.apple.mpegurl");
    expect(body.data.semantic).toMatchObject({ kind: "direct-media", semanticType: "video" });
    expect(body.data.playback).toMatchObject({ strategy: "native", component: "video", requiresMse: true, streamable: true, downloadable: false });
    const streaming = body.data.metadata.streaming;
    expect(streaming).toMatchObject({ protocol: "hls", live: false, encrypted: false, lowLatency: false, subtitles: [] });
    expect(streaming.variants.map((v: { width: number; height: number }) => `${v.width}x${v.height}`)).toEqual(["240x136", "480x270"]);
    expect(streaming.variants[0].bandwidth).toBeLessThan(streaming.variants[1].bandwidth);
    expect(streaming.audio).toEqual([{ name: "audio_2", language: "en", codecs: "mp4a.40.2", default: true }]);
    expect(body.data.metadata.video).toMatchObject({ duration: { seconds: 6, formatted: "0:06" }, width: 480, height: 270 });
    expect(body.processing.completedStages).toContain("metadata:video");
  });

  it("reads the master and one media playlist, never a segment, at the edge", async () => {
    const url = media("hls/master.m3u8");
    const started = Date.now();
    await inspect(url, "profile=fast");
    const nonce = new URL(url).searchParams.get("n")!;
    // This inspection's requests: segment paths carry no nonce, and other files' full inspections read segments.
    const paths = (await originStats()).requests.filter((r) => r.receivedAt >= started).map((r) => r.path);
    expect(paths.filter((p) => p.includes(nonce))).toEqual([`/media/hls/master.m3u8?n=${nonce}`]);
    // The variant is resolved against the master (no query carried over): one media playlist read.
    expect(paths.filter((p) => p.startsWith("/media/hls/") && p.endsWith(".ts"))).toEqual([]);
    expect(paths).toContain("/media/hls/v1/index.m3u8");
  });

  it("recognises a playlist from its bytes even when served as text/plain, and by Content-Type", async () => {
    const { body } = await inspect(media("hls/v1/index.m3u8", "type=text/plain"), "profile=fast");
    expect(body.data.identity.mime).toBe("application/vnd.apple.mpegurl");
    expect(body.data.metadata.video.duration.seconds).toBe(6);
  });

  it("a live playlist (no EXT-X-ENDLIST) is live and has no duration", async () => {
    const { body } = await inspect(media("live/index.m3u8"), "profile=fast");
    expect(body.data.metadata.streaming).toMatchObject({ protocol: "hls", live: true });
    expect(body.data.metadata.video?.duration).toBeUndefined();
  });

  it("an AES-128 playlist is encrypted", async () => {
    const { body } = await inspect(media("enc/index.m3u8"), "profile=fast");
    expect(body.data.metadata.streaming).toMatchObject({ encrypted: true, encryption: "AES-128" });
  });

  it("an audio-only master is audio", async () => {
    const { body } = await inspect(media("audio/master.m3u8"), "profile=fast");
    expect(body.data.semantic.semanticType).toBe("audio");
    expect(body.data.playback.component).toBe("audio");
    expect(body.data.metadata.audio.duration.seconds).toBeCloseTo(6, 0);
  });
});

describe("DASH", () => {
  it("an MPD is video with its representations, audio language and presentation duration", async () => {
    const { status, body } = await inspect(media("dash/manifest.mpd"), "profile=fast");
    expect(status).toBe(200);
    expect(body.data.identity.mime).toBe("application/dash+xml");
    expect(body.data.playback).toMatchObject({ strategy: "native", component: "video", requiresMse: true, streamable: true });
    expect(body.data.metadata.streaming).toMatchObject({ protocol: "dash", live: false, encrypted: false });
    expect(body.data.metadata.streaming.variants.map((v: { bandwidth: number }) => v.bandwidth)).toEqual([200_000, 600_000]);
    expect(body.data.metadata.streaming.audio).toEqual([{ language: "fre", codecs: "mp4a.40.2" }]);
    expect(body.data.metadata.video.duration.seconds).toBe(6);
  });
});

describe("hostile manifests end within the deadline with a 4xx or a failed stage and its reason", () => {
  const failedWith = async (file: string, reason: RegExp) => {
    const started = Date.now();
    const { status, body } = await inspect(media(`hostile/${file}`), "profile=fast&debug=true");
    expect(Date.now() - started).toBeLessThan(deadlineMs + 1_000);
    expect(status).toBe(200);
    expect(body.processing.failedStages).toContain("metadata:video");
    const error = body.debug.stageErrors.find((e: { stage: string }) => e.stage === "metadata:video");
    expect(error.reason).toMatch(reason);
    return body;
  };

  it("100,000 segments", async () => {
    await failedWith("many-segments.m3u8", /more than 30000 segments/);
  });
  it("a variant loop through another playlist", async () => {
    await failedWith("loop-a.m3u8", /itself a master/);
  });
  it("a master naming itself", async () => {
    // Named without the query the master was fetched with: a different URL, read once, found to be a master.
    await failedWith("self-loop.m3u8", /itself a master|loop/);
  });
  it("a variant at a private address", async () => {
    await failedWith("private-variant.m3u8", /SSRF_BLOCKED/);
  });
  it("an attribute line that would make the parser quadratic", async () => {
    await failedWith("malformed.m3u8", /malformed EXT-X-STREAM-INF/);
  });
  it("an MPD multiplying BaseURLs", async () => {
    await failedWith("bomb.mpd", /BaseURL/);
  });
  it("a manifest over the byte cap is 413", async () => {
    const { status, body } = await inspect(media("hostile/huge.m3u8"), "profile=fast");
    expect(status).toBe(413);
    expect(body.error.code).toBe("PAYLOAD_TOO_LARGE");
  });
});

// The runner does real work here (ffmpeg through its proxy): longer than the default 5 s per test.
describe("stream previews through the runner", { timeout: 20_000 }, () => {
  it("full: a thumbnail, placeholder and palette from the lowest variant's first segment (HLS)", async () => {
    const { status, body } = await inspect(media("hls/master.m3u8"), "profile=full");
    expect(status).toBe(200);
    expect(body.processing).toMatchObject({ status: "complete", pendingStages: [] });
    expect(body.processing.failedStages).toBeUndefined();
    expect(body.data.preview.thumbnail.dimensions).toMatch(/^24\dx136$/);
    expect(body.data.preview.placeholder.type).toBe("blurhash");
    expect(body.data.preview.palette.dominant).toMatch(/^#[0-9a-f]{6}$/);
  });

  it("full: DASH previews from the init and first segment", async () => {
    const { body } = await inspect(media("dash/manifest.mpd"), "profile=full");
    expect(body.processing.failedStages).toBeUndefined();
    expect(body.data.preview.thumbnail.dimensions).toMatch(/^24\dx136$/);
  });

  it("full: a playlist whose segment is a file: URI ends with failed previews and a reason, within the deadline", async () => {
    const started = Date.now();
    const { status, body } = await inspect(media("hostile/file-segment.m3u8"), "profile=full&debug=true");
    expect(status).toBe(200);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(body.processing.status).toBe("complete");
    expect(body.processing.failedStages).toEqual(["preview:thumbnail", "preview:blurhash", "preview:palette"]);
    expect(body.debug.stageErrors[0].reason).toMatch(/no video segment/);
  });
});
