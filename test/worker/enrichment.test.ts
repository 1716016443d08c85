// Background enrichment through the Worker with a real media runner process (started by global-setup behind a
// fault-injecting gate) and real ffmpeg-made files: 202 -> job -> complete, `full` waits, runner faults,
// idempotent queue messages.
import { SELF, createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { isBlurhashValid } from "blurhash";
import { describe, expect, it } from "vitest";
import worker from "../../worker/index.ts";
import { normalizeUrl, resourceKey } from "../../worker/record/target-url.ts";
import type { RunnerWorkMessage } from "../../shared/schemas/queue.ts";
import { InspectResponse } from "../../shared/schemas/inspect.ts";
import { inspect, media, origin } from "../../testkit/worker/helpers.ts";
import { getJob, pollJob, runnerCalls } from "../../testkit/worker/jobs.ts";
import { runnerWorkSettled } from "../../testkit/worker/object-state.ts";
import { waitFor } from "../../testkit/wait-for.ts";

/** The Worker's own queue handler, called as the runtime would (batch, env, ctx). */
const consumer = worker as ExportedHandler<Env>;

const isoDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const hex = /^#[0-9a-f]{6}$/;
const videoStages = ["metadata:video", "preview:thumbnail", "preview:blurhash", "preview:palette"];

/** Expects a complete standard/full envelope for a 640x360 25 fps 4 s h264 clip (the fixture video.mp4). */
function expectCompleteVideo(body: any) {
  expect(InspectResponse.safeParse(body).success).toBe(true);
  expect(body.processing).toMatchObject({ status: "complete", completion: 1, enrichmentsPending: false, pendingStages: [] });
  expect(body.processing.completedStages).toEqual(expect.arrayContaining(["semantic", "mediaFormat", ...videoStages]));
  expect(body.processing.failedStages).toBeUndefined();
  const video = body.data.metadata.video;
  expect(video.duration.seconds).toBeCloseTo(4, 0);
  expect(video.duration.formatted).toBe("0:04");
  expect(video).toMatchObject({ fps: 25, width: 640, height: 360, codec: "h264" });
  expect(video.bitrate.bps).toBeGreaterThan(0);
  expect(video.bitrate.formatted).toMatch(/^\d+(\.\d+)? [kM]bps$/);
  const preview = body.data.preview;
  expect(preview.thumbnail.url).toMatch(/^\/api\/v1\/thumbnails\/[0-9a-f]{64}-[0-9a-f]{16}-\d+x\d+\.webp$/);
  expect(preview.thumbnail.dimensions).toBe("320x180");
  expect(preview.placeholder.type).toBe("blurhash");
  expect(isBlurhashValid(preview.placeholder.value).result).toBe(true);
  expect(preview.palette.dominant).toMatch(hex);
  expect(preview.dominantColor).toBe(preview.palette.dominant);
  expect(body.data.metadata.image).toBeUndefined();
  expect(body.data.metadata.audio).toBeUndefined();
}

describe("standard on video: 202, then the job completes", { timeout: 20_000 }, () => {
  it("answers 202 with a job, the job reaches completed with the full standard envelope, then 200 from cache", async () => {
    const url = media("video.mp4");
    const first = await inspect(url);
    expect(first.status).toBe(202);
    expect(first.body.job).toEqual({ id: expect.any(String), status: "processing" });
    expect(first.body.message).toEqual(expect.stringContaining("/api/v1/job/"));
    expect(first.body.processing.status).toBe("partial");
    // The moov in the head declares the video facts: metadata is done at the edge, previews wait for the runner.
    expect(first.body.processing.pendingStages).toEqual(videoStages.slice(1));
    expect(first.body.data.metadata.video).toMatchObject({ fps: 25, width: 640, height: 360, codec: "h264" });
    // Pending enrichments are registered: null, not omitted (SPEC 2.3).
    expect(first.body.data.preview).toEqual({ thumbnail: null, placeholder: null, palette: null, dominantColor: null });

    const { final, seen } = await pollJob(first.body.job.id);
    const progress = seen.map((s) => s.job.progress);
    for (const p of progress) expect(p >= 0 && p <= 100).toBe(true);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]!);
    for (const s of seen) {
      expect(["waiting", "active", "delayed", "completed"]).toContain(s.job.status);
      expect(s.job.createdAt).toMatch(isoDate);
      if (s.job.status !== "completed") expect(s.data).toBeUndefined();
    }
    expect(final.job).toMatchObject({ id: first.body.job.id, status: "completed", progress: 100 });
    expect(final.job.completedAt).toMatch(isoDate);
    expect(Date.parse(final.job.completedAt!)).toBeGreaterThanOrEqual(Date.parse(final.job.createdAt));
    expect(final.data.projection).toEqual({ profile: "standard", hiddenFields: [] });
    expect(final.data.data.identity.url).toBe(url);
    expect(final.data.data.diagnostics).toBeUndefined();
    expectCompleteVideo(final.data);

    // The generated thumbnail is served by the Worker from R2, as long-cacheable WebP.
    const thumb = await SELF.fetch(`http://service${final.data.data.preview.thumbnail.url}`);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get("content-type")).toBe("image/webp");
    const maxAge = Number(/max-age=(\d+)/.exec(thumb.headers.get("cache-control") ?? "")?.[1]);
    expect(maxAge).toBeGreaterThanOrEqual(30 * 86_400);
    const bytes = new Uint8Array(await thumb.arrayBuffer());
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe("RIFF");
    expect(new TextDecoder().decode(bytes.subarray(8, 12))).toBe("WEBP");

    const again = await inspect(url);
    expect(again.status).toBe(200);
    expect(again.body.responseSource).toBe("cache");
    expect(again.body.job).toBeUndefined();
    expectCompleteVideo(again.body);
    expect(again.body.data.preview).toEqual(final.data.data.preview);
  });

  it("a second caller while the job runs gets its own job; both complete with the same result", async () => {
    const url = media("video-moov-end.mp4");
    const [a, b] = await Promise.all([inspect(url), inspect(url)]);
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(a.body.job.id).not.toBe(b.body.job.id);
    const [ja, jb] = await Promise.all([pollJob(a.body.job.id), pollJob(b.body.job.id)]);
    expect(ja.final.data.data).toEqual(jb.final.data.data);
    expectCompleteVideo(ja.final.data);
    // One resource, one runner job, however many callers.
    expect(await runnerCalls(url)).toBe(1);
  });
});

describe("full waits for every stage", { timeout: 20_000 }, () => {
  it.each(["video.mp4", "video-moov-end.mp4"])("full on %s answers 200 complete with diagnostics", async (file) => {
    const res = await inspect(media(file), "profile=full");
    expect(res.status).toBe(200);
    expect(res.body.job).toBeUndefined();
    expect(res.body.projection).toEqual({ profile: "full", hiddenFields: [] });
    expectCompleteVideo(res.body);
    const timings = res.body.data.diagnostics.timings;
    for (const key of ["total", "semantic", "mediaFormat", "preview"]) expect(Number.isInteger(timings[key]), key).toBe(true);
    for (const v of Object.values(timings)) expect(Number.isInteger(v) && (v as number) >= 0).toBe(true);
  });

  it("full on webm reads the vp9 stream", async () => {
    const res = await inspect(media("video.webm"), "profile=full");
    expect(res.status).toBe(200);
    expect(res.body.processing.status).toBe("complete");
    expect(res.body.processing.failedStages).toBeUndefined();
    expect(res.body.data.metadata.video).toMatchObject({ width: 320, height: 240, fps: 25, codec: "vp9" });
    expect(res.body.data.metadata.video.duration.seconds).toBeCloseTo(2, 0);
    expect(res.body.data.preview.thumbnail.dimensions).toBe("320x240");
  });

  it("full joins work already under way (a standard 202 first) and still answers complete", async () => {
    const url = media("video.mp4");
    const first = await inspect(url);
    expect(first.status).toBe(202);
    const full = await inspect(url, "profile=full");
    expect(full.status).toBe(200);
    expectCompleteVideo(full.body);
    expect(await runnerCalls(url)).toBe(1);
  });
});

describe("audio", () => {
  // Codec names in ffprobe's (runner) or music-metadata's (edge) vocabulary: the two engines disagree today.
  const audio: [string, { codec: RegExp; sampleRate: number; seconds: number }][] = [
    ["audio.mp3", { codec: /^(mp3|MPEG 1 Layer 3)$/, sampleRate: 44100, seconds: 5 }],
    ["audio.ogg", { codec: /^(vorbis|Vorbis I)$/, sampleRate: 48000, seconds: 5 }],
    ["audio.flac", { codec: /^flac$/i, sampleRate: 48000, seconds: 5 }],
    ["audio.wav", { codec: /^(pcm_s16le|PCM)$/, sampleRate: 22050, seconds: 3 }],
    ["audio.m4a", { codec: /^(aac|MPEG-4\/AAC)$/, sampleRate: 44100, seconds: 5 }],
  ];
  it.each(audio)("full on %s: formatted audio metadata, waveform/spectrogram null, no visual keys", async (file, want) => {
    const res = await inspect(media(file), "profile=full");
    expect(res.status).toBe(200);
    expect(InspectResponse.safeParse(res.body).success).toBe(true);
    expect(res.body.processing).toMatchObject({ status: "complete", completion: 1, pendingStages: [] });
    expect(res.body.processing.failedStages).toBeUndefined();
    expect(res.body.projection.hiddenFields).toEqual([]);
    const meta = res.body.data.metadata.audio;
    expect(meta.duration.seconds).toBeCloseTo(want.seconds, 0);
    expect(meta.duration.formatted).toBe(`0:0${want.seconds}`);
    expect(meta.sampleRate).toBe(want.sampleRate);
    expect(meta.codec).toMatch(want.codec);
    expect(meta.bitrate.bps).toBeGreaterThan(0);
    expect(meta.bitrate.formatted).toMatch(/^\d+(\.\d+)? [kM]bps$/);
    expect(res.body.data.metadata.video).toBeUndefined();
    expect(res.body.data.metadata.image).toBeUndefined();
    // Audio has no visual enrichments: omitted (not null); waveform and spectrogram are reserved nulls.
    expect(res.body.data.preview).toEqual({ waveform: null, spectrogram: null });
    expect(Object.keys(res.body.data.preview).sort()).toEqual(["spectrogram", "waveform"]);
    expect(Number.isInteger(res.body.data.diagnostics.timings.total)).toBe(true);
  });

  it("standard on audio completes with no thumbnail/placeholder/palette keys at any point", async () => {
    const res = await inspect(media("audio.mp3"));
    expect([200, 202]).toContain(res.status);
    expect(Object.keys(res.body.data.preview ?? {}).sort()).toEqual(["spectrogram", "waveform"]);
    const final = res.status === 202 ? (await pollJob(res.body.job.id)).final.data : res.body;
    expect(final.processing.status).toBe("complete");
    expect(final.data.metadata.audio.codec).toMatch(/^(mp3|MPEG 1 Layer 3)$/);
    expect(final.data.preview).toEqual({ waveform: null, spectrogram: null });
  });
});

describe("runner faults", { timeout: 30_000 }, () => {
  it("a runner that is down for two calls, then up: the job is delayed, retried, and completes", async () => {
    const url = media("video.mp4", "runner=down-2");
    const res = await inspect(url);
    expect(res.status).toBe(202);
    const { final, seen } = await pollJob(res.body.job.id, 150, 100);
    expect(seen.map((s) => s.job.status)).toContain("delayed");
    expect(final.job.status).toBe("completed");
    expectCompleteVideo(final.data);
    expect(await runnerCalls(url)).toBe(3);
  });

  it("a runner that always fails: its stages end as failed (omitted fields), the job fails, nothing stays pending", async () => {
    const url = media("video.mp4", "runner=fail");
    const res = await inspect(url);
    expect(res.status).toBe(202);
    const { final } = await pollJob(res.body.job.id, 150, 100);
    expect(final.job.status).toBe("failed");
    const processing = final.data.processing;
    expect(processing).toMatchObject({ status: "complete", completion: 1, enrichmentsPending: false, pendingStages: [] });
    // Only the runner's stages fail; the container facts were read at the edge (partial results, issue 9).
    expect([...processing.failedStages].sort()).toEqual(videoStages.slice(1).sort());
    expect(final.data.data.metadata.video).toMatchObject({ width: 640, height: 360, codec: "h264" });
    expect(final.data.data.preview ?? {}).toEqual({});
    // RUNNER_MAX_ATTEMPTS=3 in the test bindings: three calls, then the stages fail, no more retries.
    expect(await runnerCalls(url)).toBe(3);
    // No dispatch left and no runner stage pending: nothing can call the runner again.
    await waitFor(() => runnerWorkSettled(url), { what: "the resource's runner work settled" });
    expect(await runnerCalls(url)).toBe(3);
    const cached = await inspect(url);
    expect(cached.status).toBe(200);
    expect(cached.body.processing.failedStages.sort()).toEqual(videoStages.slice(1).sort());
    const full = await inspect(url, "profile=full");
    expect(full.status).toBe(200);
    expect(full.body.processing.status).toBe("complete");
  });

  it("a permanent runner error (unreadable media) fails the stages at once: one runner call, no retries", async () => {
    // The first 3000 bytes of the real file, then garbage: sniffed as MP4 at the edge, unreadable for ffmpeg.
    const url = `${origin}/corrupt/video.mp4?keep=3000&n=${crypto.randomUUID().slice(0, 8)}`;
    const res = await inspect(url);
    expect(res.status).toBe(202);
    const { final } = await pollJob(res.body.job.id, 150, 100);
    expect(final.job.status).toBe("failed");
    // Every stage the job waited for (the previews) failed, so the job failed; the header's facts (the moov is in those 3000 bytes) stand; the runner cannot decode a frame.
    expect([...final.data.processing.failedStages].sort()).toEqual(videoStages.slice(1).sort());
    await waitFor(() => runnerWorkSettled(url), { what: "the resource's runner work settled" });
    expect(await runnerCalls(url)).toBe(1);
  });

  // Stages are marked queued before the send, so concurrent callers queue one message. A failing runner makes
  // any duplicate countable (every message would be retried to the limit).
  it("eight concurrent callers queue one runner job (counted with a failing runner: 3 attempts, not 3 per caller)", async () => {
    const url = media("video.mp4", "runner=fail");
    const answers = await Promise.all(Array.from({ length: 8 }, () => inspect(url)));
    await Promise.all(answers.map((a) => pollJob(a.body.job.id, 150, 100)));
    expect(await runnerCalls(url)).toBe(3);
  });
});

describe("queue messages are idempotent", { timeout: 20_000 }, () => {
  async function messageFor(mediaUrl: string): Promise<RunnerWorkMessage> {
    const normalizedUrl = normalizeUrl(new URL(mediaUrl));
    return { version: 1, resourceName: normalizedUrl, key: await resourceKey(normalizedUrl), url: mediaUrl, category: "video", stages: videoStages as RunnerWorkMessage["stages"] };
  }

  it("a duplicate message for a finished resource is acked and changes nothing (no runner call, same record, same R2 object)", async () => {
    const url = media("video.mp4");
    const res = await inspect(url, "profile=full");
    expect(res.status).toBe(200);
    const thumbKey = `thumbnails/${res.body.data.preview.thumbnail.url.split("/").pop()}`;
    const before = { calls: await runnerCalls(url), object: await env.THUMBNAILS.head(thumbKey) };
    expect(before.calls).toBe(1);
    expect(before.object).not.toBeNull();

    const message = await messageFor(url);
    const batch = createMessageBatch("media-inspect-runner-work", [
      { id: "dup-1", timestamp: new Date(), attempts: 1, body: message },
      { id: "dup-2", timestamp: new Date(), attempts: 1, body: message },
    ]);
    const ctx = createExecutionContext();
    await consumer.queue!(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["dup-1", "dup-2"]);
    expect(result.retryMessages).toEqual([]);

    expect(await runnerCalls(url)).toBe(before.calls);
    const after = await env.THUMBNAILS.head(thumbKey);
    expect(after?.etag).toBe(before.object!.etag);
    expect(after?.uploaded.getTime()).toBe(before.object!.uploaded.getTime());
    const again = await inspect(url, "profile=full");
    expect(again.body.processing).toEqual(res.body.processing);
    expect(again.body.data.metadata).toEqual(res.body.data.metadata);
    expect(again.body.data.preview).toEqual(res.body.data.preview);
  });

  it("a failure message arriving after success does not undo the result", async () => {
    const url = media("video.mp4");
    const res = await inspect(url, "profile=full");
    // The same stages, now from the dead-letter queue: only still-pending stages may be marked failed.
    const batch = createMessageBatch("media-inspect-runner-work-dlq", [{ id: "late", timestamp: new Date(), attempts: 1, body: await messageFor(url) }]);
    const ctx = createExecutionContext();
    await consumer.queue!(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["late"]);
    const again = await inspect(url, "profile=full");
    expect(again.body.processing.failedStages).toBeUndefined();
    expect(again.body.data.preview).toEqual(res.body.data.preview);
  });

  it("a malformed message is dropped (acked), not retried forever", async () => {
    const batch = createMessageBatch("media-inspect-runner-work", [{ id: "bad", timestamp: new Date(), attempts: 1, body: { version: 2, url: "x" } }]);
    const ctx = createExecutionContext();
    await consumer.queue!(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["bad"]);
    expect(result.retryMessages).toEqual([]);
  });
});

describe("full has an upper bound (FULL_WAIT_TIMEOUT_MS = 12 s in tests)", { timeout: 60_000 }, () => {
  it("past the bound, full answers 202 with the job (the documented answer), and the job later completes", async () => {
    const url = media("video.mp4", "runner=slow-16000");
    const started = Date.now();
    const res = await inspect(url, "profile=full");
    const waited = Date.now() - started;
    expect(res.status).toBe(202);
    expect(waited).toBeGreaterThanOrEqual(11_500);
    expect(waited).toBeLessThan(16_000);
    expect(res.body.job).toMatchObject({ status: "processing" });
    expect(res.body.message).toMatch(/background/);
    expect(res.body.processing.status).toBe("partial");
    const { final, seen } = await pollJob(res.body.job.id, 200, 100);
    expect(seen.some((b) => b.job.status === "active")).toBe(true);
    expect(final.job.status).toBe("completed");
    expect(final.data.processing.status).toBe("complete");
  });
});

describe("job status follows the work", { timeout: 20_000 }, () => {
  it("delayed after a runner failure waits for its retry, then active, then completed", async () => {
    const res = await inspect(media("video.mp4", "runner=down-1"));
    expect(res.status).toBe(202);
    const { final, seen } = await pollJob(res.body.job.id, 150, 50);
    const statuses = [...new Set(seen.map((b) => b.job.status))];
    expect(statuses).toContain("delayed");
    expect(statuses.at(-1)).toBe("completed");
    expect(final.data.processing.failedStages).toBeUndefined();
  });
});

describe("a job polled right after creation", { timeout: 20_000 }, () => {
  it("GET job of a just-created job returns 200 with a consistent brief", async () => {
    const res = await inspect(media("video.mp4"));
    const { status, body } = await getJob(res.body.job.id);
    expect(status).toBe(200);
    expect(body.job.id).toBe(res.body.job.id);
    await pollJob(res.body.job.id);
  });
});
