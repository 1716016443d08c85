// Issue 9 "Must show": each class of file the service used to get wrong, made with ffmpeg in the set-up
// (testkit/media-fixtures.ts), inspected through the Worker over the loopback origin and scored against
// ffprobe's own values (computed in global-setup, testkit/ffprobe-reference.ts): category, MIME family,
// duration within 2 %, sample rate, displayed dimensions, rotation/orientation, frames, thumbnail; then the
// facts `fast` must have without the runner.
import { describe, expect, it } from "vitest";
import { inspect, media } from "../../../testkit/worker/helpers.ts";
import { fixtureFacts } from "../../../testkit/worker/fixture-facts.ts";

type Category = "video" | "audio" | "image";
interface Case {
  file: string;
  category: Category;
  /** MIME family/type the identity must report. */
  mime: RegExp;
  /** The evidence that must have decided (semantic.enrichmentSources). */
  evidence?: string;
  /** The evidence for a duration the file does not declare (computed from its end or its frames). */
  durationFrom?: string;
  /** Expected EXIF orientation / frames for images (ffprobe does not read EXIF or count GIF loops). */
  orientation?: number;
  frames?: number;
  loop?: number;
  /** Whether ffmpeg (or sharp) can decode a picture of it: then a thumbnail is required. */
  thumbnail: boolean;
  /** Facts `fast` must have from the container's header alone. */
  fast: string[];
}

const cases: Case[] = [
  { file: "opus.webm", category: "audio", mime: /^audio\/webm$/, evidence: "tracks:matroska-tracks", thumbnail: false, fast: ["duration", "sampleRate", "channels"] },
  { file: "flac.mka", category: "audio", mime: /^audio\/matroska$/, evidence: "tracks:matroska-tracks", thumbnail: false, fast: ["duration", "sampleRate", "channels", "bitDepth"] },
  { file: "vorbis-cover.ogg", category: "audio", mime: /^audio\/ogg$/, evidence: "tracks:ogg-headers", thumbnail: false, fast: ["duration", "sampleRate", "channels"] },
  { file: "audio.wma", category: "audio", mime: /^audio\/x-ms-asf$/, evidence: "tracks:asf-header", thumbnail: false, fast: ["duration", "sampleRate", "channels"] },
  { file: "aac-only.mp4", category: "audio", mime: /^audio\/mp4$/, evidence: "tracks:mp4-moov", thumbnail: false, fast: ["duration", "sampleRate", "channels"] },
  { file: "rotated-90.mp4", category: "video", mime: /^video\/mp4$/, evidence: "tracks:mp4-moov", thumbnail: true, fast: ["duration", "fps", "width", "height", "rotation", "codec", "profile", "faststart", "channels"] },
  { file: "rotated-90.mov", category: "video", mime: /^video\/quicktime$/, evidence: "tracks:mp4-moov", thumbnail: true, fast: ["duration", "fps", "width", "height", "rotation", "codec"] },
  { file: "truncated.mp4", category: "video", mime: /^video\/mp4$/, evidence: "tracks:mp4-moov", thumbnail: true, fast: ["duration", "fps", "width", "height", "codec"] },
  { file: "recorder.webm", category: "video", mime: /^video\/webm$/, evidence: "tracks:matroska-tracks", durationFrom: "duration:matroska-tail", thumbnail: true, fast: ["duration", "fps", "width", "height", "codec"] },
  { file: "vbr-no-xing.mp3", category: "audio", mime: /^audio\/mpeg$/, durationFrom: "duration:mp3-frames", thumbnail: false, fast: ["duration", "sampleRate", "channels"] },
  { file: "cbr-no-info.mp3", category: "audio", mime: /^audio\/mpeg$/, thumbnail: false, fast: ["duration", "sampleRate", "channels"] },
  { file: "jpeg-orientation-6.jpg", category: "image", mime: /^image\/jpeg$/, orientation: 6, frames: 1, thumbnail: true, fast: ["width", "height", "orientation", "frames"] },
  { file: "animated.gif", category: "image", mime: /^image\/gif$/, frames: 12, loop: 0, thumbnail: true, fast: ["width", "height", "frames", "duration", "loop"] },
  { file: "animated.webp", category: "image", mime: /^image\/webp$/, frames: 12, loop: 0, thumbnail: true, fast: ["width", "height", "frames", "duration", "loop"] },
  { file: "image.bmp", category: "image", mime: /^image\/(x-ms-)?bmp$/, frames: 1, thumbnail: true, fast: ["width", "height", "frames"] },
  { file: "image.ico", category: "image", mime: /^image\/(x-icon|vnd\.microsoft\.icon)$/, frames: 1, thumbnail: true, fast: ["width", "height", "frames"] },
  { file: "image.jxl", category: "image", mime: /^image\/jxl$/, frames: 1, thumbnail: true, fast: ["width", "height", "frames"] },
];

const reference = await fixtureFacts("ffprobeFacts");
const within2Percent = (actual: number, expected: number) => expect(Math.abs(actual - expected) / expected).toBeLessThanOrEqual(0.02);

/** Checks one answer's metadata against ffprobe's values; `only` limits it to the facts `fast` must have. */
function expectFacts(c: Case, data: any, only?: string[]) {
  const ref = reference[c.file]!;
  const wants = (fact: string) => !only || only.includes(fact);
  expect(data.semantic).toMatchObject({ kind: "direct-media", semanticType: c.category });
  expect(data.identity.mime).toMatch(c.mime);
  if (c.evidence) expect(data.semantic.enrichmentSources).toContain(c.evidence);
  if (c.durationFrom) expect(data.semantic.enrichmentSources).toContain(c.durationFrom);
  const metadata = data.metadata[c.category];
  expect(metadata, JSON.stringify(data.metadata)).toBeTruthy();
  for (const other of (["video", "audio", "image"] as const).filter((k) => k !== c.category)) expect(data.metadata).not.toHaveProperty(other);
  for (const fact of only ?? []) expect(metadata, `${c.file}: ${fact} in ${JSON.stringify(metadata)}`).toHaveProperty(fact);
  if (c.category !== "image" && wants("duration")) within2Percent(metadata.duration.seconds, ref.duration!);
  if (c.category === "audio") {
    if (wants("sampleRate")) expect(metadata.sampleRate).toBe(ref.audio!.sampleRate);
    if (wants("channels")) expect(metadata.channels).toBe(ref.audio!.channels);
  }
  if (c.category === "video") {
    if (wants("width")) expect([metadata.width, metadata.height]).toEqual([ref.video!.width, ref.video!.height]);
    // Only MP4/MOV declare a display matrix; elsewhere an omitted rotation means none.
    if (wants("rotation")) expect(metadata.rotation ?? 0).toBe(ref.video!.rotation);
    if (wants("codec")) expect(metadata.codec).toBe(ref.video!.codec);
  }
  if (c.category === "image") {
    if (ref.video && c.file !== "animated.webp") expect([metadata.width, metadata.height]).toEqual(c.orientation
      ? [ref.video.height, ref.video.width] // ffprobe ignores EXIF: the displayed size is its size turned
      : [ref.video.width, ref.video.height]);
    if (c.orientation && wants("orientation")) expect(metadata.orientation).toBe(c.orientation);
    if (wants("frames")) expect(metadata.frames).toBe(c.frames);
    if (c.file === "animated.gif" && wants("frames")) expect(metadata.frames).toBe(ref.video!.frames);
    if (c.loop !== undefined && wants("loop")) expect(metadata.loop).toBe(c.loop);
    if (c.file === "animated.gif" && wants("duration")) within2Percent(metadata.duration.seconds, ref.duration!);
    if (c.file === "animated.webp" && wants("duration")) expect(metadata.duration.seconds).toBeCloseTo(1.2, 1);
  }
}

describe("facts from evidence, profile=full (runner included)", { timeout: 30_000 }, () => {
  it.each(cases)("$file", async (c) => {
    const { status, body } = await inspect(media(c.file), "profile=full");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.processing.failedStages, JSON.stringify(body.processing)).toBeUndefined();
    expect(body.processing.status).toBe("complete");
    expectFacts(c, body.data);
    if (c.thumbnail) {
      expect(body.data.preview.thumbnail?.url, JSON.stringify(body.data.preview)).toMatch(/^\/api\/v1\/thumbnails\//);
      const [w, h] = (body.data.preview.thumbnail.dimensions as string).split("x").map(Number);
      const meta = body.data.metadata[c.category];
      // The thumbnail keeps the displayed aspect ratio (rotation and EXIF orientation applied).
      expect(Math.sign(w! - h!)).toBe(Math.sign(meta.width - meta.height));
    }
  });
});

describe("bytes pulled", () => {
  it("a CBR MP3 without an Info header: duration from the head's frames, the file is not walked", async () => {
    const url = media("cbr-no-info.mp3");
    const { body } = await inspect(url, "profile=fast");
    within2Percent(body.data.metadata.audio.duration.seconds, reference["cbr-no-info.mp3"]!.duration!);
    const n = new URL(url).searchParams.get("n")!;
    const stats = (await (await fetch(`${new URL(url).origin}/__stats`)).json()) as { requests: { path: string; bytes: number }[] };
    const pulled = stats.requests.filter((r) => r.path.includes(`n=${n}`)).reduce((sum, r) => sum + r.bytes, 0);
    expect(pulled).toBeLessThan(body.data.metadata.size.bytes / 4);
  });
});

describe("facts from evidence, profile=fast (edge only)", { timeout: 15_000 }, () => {
  it.each(cases)("$file", async (c) => {
    const { status, body } = await inspect(media(c.file), "profile=fast");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.processing.completedStages).toContain(`metadata:${c.category}`);
    expectFacts(c, body.data, c.fast);
  });
});
