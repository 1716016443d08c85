// Issue 9 items 2 and 4 through the Worker over HTTP: each stage ends on its own (a file whose frame cannot
// be decoded keeps the metadata ffprobe read), a failed stage says why (full's diagnostics, debug=true), and
// the runner's streams revise a wrong category (stages that no longer apply are dropped, not failed).
import { describe, expect, it } from "vitest";
import { inspect, media, origin } from "../../../testkit/worker/helpers.ts";

const previewStages = ["preview:thumbnail", "preview:blurhash", "preview:palette"];

/** /corrupt/<file>?keep=N serves the first N bytes of a real file, then garbage, without Range support. */
function cut(file: string, keep: number): string {
  return `${media(file).replace("/media/", "/corrupt/")}&keep=${keep}`;
}

async function bytesOf(file: string): Promise<Uint8Array> {
  return new Uint8Array(await (await fetch(`${origin}/media/${file}`)).arrayBuffer());
}

/** Offset of a top-level ISO-BMFF box (32-bit sizes: the fixtures are small). */
function boxOffset(file: Uint8Array, type: string): number {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  for (let offset = 0; offset + 8 <= file.byteLength; ) {
    const size = view.getUint32(offset);
    if (String.fromCharCode(...file.subarray(offset + 4, offset + 8)) === type) return offset;
    if (size < 8) break;
    offset += size;
  }
  throw new Error(`no ${type} box`);
}

describe("metadata and previews end independently", () => {
  it("an MP4 whose moov is whole but whose frames are cut off: duration, fps and codec kept, previews failed with a reason", async () => {
    const file = await bytesOf("video.mp4"); // moov first (faststart), 640x360, 25 fps, 4 s
    const url = cut("video.mp4", boxOffset(file, "mdat") + 64);
    const { status, body } = await inspect(url, "profile=full");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.semantic.semanticType).toBe("video");
    expect(body.processing).toMatchObject({ status: "complete", pendingStages: [], failedStages: previewStages });
    const video = body.data.metadata.video;
    expect(video.duration.seconds).toBeCloseTo(4, 1);
    expect(video.fps).toBeCloseTo(25, 1);
    expect(video.codec).toBe("h264");
    expect([video.width, video.height]).toEqual([640, 360]);
    expect(body.data.preview).toBeUndefined();
    // Why, in one line each: full's diagnostics; failedStages stays a list of names (SPEC compatible).
    const errors = body.data.diagnostics.stageErrors as { stage: string; reason: string }[];
    expect(errors.map((e) => e.stage)).toEqual(previewStages);
    for (const e of errors) {
      expect(e.reason).toMatch(/^CORRUPT_MEDIA: /);
      expect(e.reason.length).toBeLessThanOrEqual(200);
    }
    expect(body.debug).toBeUndefined();

    // debug=true shows the same reasons in any profile; without it they stay out of standard answers.
    const debug = await inspect(url, "debug=true");
    expect(debug.body.debug.stageErrors).toEqual(errors);
    expect(debug.body.data.diagnostics).toBeUndefined();
    const plain = await inspect(url);
    expect(plain.body.debug).toBeUndefined();
    expect(plain.body.processing).toEqual(debug.body.processing);
  });

  it("an MP4 cut at 30 % with moov at the end: nothing is readable, every media stage fails with the reason", async () => {
    const size = (await bytesOf("video-moov-end.mp4")).byteLength;
    const { status, body } = await inspect(cut("video-moov-end.mp4", Math.floor(size * 0.3)), "profile=full");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.processing).toMatchObject({ status: "complete", failedStages: ["metadata:video", ...previewStages] });
    expect(body.data.metadata.video).toBeUndefined();
    const errors = body.data.diagnostics.stageErrors as { stage: string; reason: string }[];
    expect(errors.map((e) => e.stage)).toEqual(["metadata:video", ...previewStages]);
    for (const e of errors) expect(e.reason).toMatch(/^CORRUPT_MEDIA: /);
  });

  it("an MP4 cut at 30 % with moov first keeps the whole file's metadata", async () => {
    const size = (await bytesOf("video.mp4")).byteLength;
    const { status, body } = await inspect(cut("video.mp4", Math.floor(size * 0.3)), "profile=full");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.processing.status).toBe("complete");
    expect(body.processing.failedStages ?? []).not.toContain("metadata:video");
    expect(body.data.metadata.video.duration.seconds).toBeCloseTo(4, 1);
    expect(body.data.metadata.video.codec).toBe("h264");
  });
});

describe("the runner's streams revise a wrong category", () => {
  it("an audio-only AVI (sniffed video/vnd.avi) ends as audio: previews dropped, not failed; the stream list named as the evidence", async () => {
    const url = media("audio-only.avi");
    const { status, body } = await inspect(url, "profile=full");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.semantic).toMatchObject({ kind: "direct-media", semanticType: "audio" });
    // The edge's AVI header reader (hdrl) knows the stream list now; without it, ffprobe's revises the category.
    expect(body.data.semantic.enrichmentSources.filter((s: string) => s === "tracks:avi-hdrl" || s === "tracks:ffprobe")).toHaveLength(1);
    expect(body.data.identity.mime).toMatch(/^audio\//);
    expect(body.processing).toEqual({
      status: "complete", completion: 1, enrichmentsPending: false,
      completedStages: ["semantic", "mediaFormat", "metadata:audio", "metadata:provenance"], pendingStages: [],
    });
    expect(body.data.metadata.audio).toMatchObject({ sampleRate: 8000, channels: 1, codec: "pcm_s16le" });
    expect(body.data.metadata.audio.duration.seconds).toBeCloseTo(1, 1);
    expect(body.data.metadata.video).toBeUndefined();
    expect(body.data.playback.component).toBe("audio");
    // Later answers (any profile) agree: the revision is in the record.
    const fast = await inspect(url, "profile=fast");
    expect(fast.body.data.semantic.semanticType).toBe("audio");
    expect(fast.body.processing).toEqual(body.processing);
  });
});
