// Issue 2 item 5: profile=fast over real image, video and audio files (ffmpeg-made media in test/.fixtures/media,
// committed images in test/fixtures/images) served by the loopback origin with and without Range support.
// Checks the answer (type from bytes, playback, size, filename, metadata, honest processing, projection) and
// what the origin actually sent: a Range probe of the head, the tail only when needed, never the whole file.
import { shareIdOf } from "../../../shared/format/share-id.ts";
import { describe, expect, it } from "vitest";
import { inspect, media, origin, originStats } from "../../../testkit/worker/helpers.ts";

const probeHeadBytes = 16 * 1024;
/** What the probe keeps of an origin that ignores Range and streams the whole file (PROBE_STREAM_HEAD_BYTES). */
const streamHeadBytes = 64 * 1024;

type Category = "video" | "audio" | "image";
interface Fixture {
  file: string;
  mime: string;
  category: Category;
  audio?: { seconds: number; sampleRate: number };
  image?: { width: number; height: number; hasAlpha: boolean; colorSpace: string };
}

// Lengths and rates as generated in testkit/media-fixtures.ts; image facts as in test/fixtures/images/generate.mjs.
const fixtures: Fixture[] = [
  { file: "video.mp4", mime: "video/mp4", category: "video" },
  { file: "video-moov-end.mp4", mime: "video/mp4", category: "video" },
  { file: "video.webm", mime: "video/webm", category: "video" },
  { file: "audio.mp3", mime: "audio/mpeg", category: "audio", audio: { seconds: 5, sampleRate: 44100 } },
  { file: "audio.ogg", mime: "audio/ogg", category: "audio", audio: { seconds: 5, sampleRate: 48000 } },
  { file: "audio.flac", mime: "audio/flac", category: "audio", audio: { seconds: 5, sampleRate: 48000 } },
  { file: "audio.wav", mime: "audio/wav", category: "audio", audio: { seconds: 3, sampleRate: 22050 } },
  { file: "audio.m4a", mime: "audio/mp4", category: "audio", audio: { seconds: 5, sampleRate: 44100 } },
  { file: "png-alpha.png", mime: "image/png", category: "image", image: { width: 96, height: 64, hasAlpha: true, colorSpace: "srgb" } },
  { file: "png-opaque.png", mime: "image/png", category: "image", image: { width: 96, height: 64, hasAlpha: false, colorSpace: "srgb" } },
  { file: "png-gray.png", mime: "image/png", category: "image", image: { width: 96, height: 64, hasAlpha: false, colorSpace: "gray" } },
  { file: "png-p3.png", mime: "image/png", category: "image", image: { width: 96, height: 64, hasAlpha: false, colorSpace: "display-p3" } },
  { file: "jpeg-rgb.jpg", mime: "image/jpeg", category: "image", image: { width: 96, height: 64, hasAlpha: false, colorSpace: "srgb" } },
  { file: "jpeg-cmyk.jpg", mime: "image/jpeg", category: "image", image: { width: 96, height: 64, hasAlpha: false, colorSpace: "cmyk" } },
  { file: "jpeg-orientation-6.jpg", mime: "image/jpeg", category: "image", image: { width: 64, height: 96, hasAlpha: false, colorSpace: "srgb" } },
  { file: "webp-alpha.webp", mime: "image/webp", category: "image", image: { width: 96, height: 64, hasAlpha: true, colorSpace: "srgb" } },
  { file: "webp-lossy.webp", mime: "image/webp", category: "image", image: { width: 96, height: 64, hasAlpha: false, colorSpace: "srgb" } },
  { file: "gif-transparent.gif", mime: "image/gif", category: "image", image: { width: 96, height: 64, hasAlpha: true, colorSpace: "srgb" } },
  { file: "gif-opaque.gif", mime: "image/gif", category: "image", image: { width: 96, height: 64, hasAlpha: false, colorSpace: "srgb" } },
];

const component: Record<Category, string> = { video: "video", audio: "audio", image: "img" };
const previewStages = ["preview:thumbnail", "preview:blurhash", "preview:palette"];

const sizes = new Map<string, number>();
/** The file's size as the origin serves it (read once with a HEAD-like GET outside the inspected URLs). */
async function sizeOf(file: string): Promise<number> {
  if (!sizes.has(file)) {
    const response = await fetch(`${origin}/media/${file}`);
    sizes.set(file, (await response.arrayBuffer()).byteLength);
  }
  return sizes.get(file)!;
}

async function requestsFor(url: string) {
  const n = new URL(url).searchParams.get("n")!;
  return (await originStats()).requests.filter((r) => new URL(r.path, origin).searchParams.get("n") === n);
}

async function fastInspect(file: string, params = "") {
  const url = media(file, params);
  const result = await inspect(url, "profile=fast");
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  return { url, body: result.body, requests: await requestsFor(url) };
}

/** Does everything fit in what a 200 without Range leaves us? Then it is the whole file and metadata reads work. */
const fitsInHead = (size: number) => size <= streamHeadBytes;

describe.each([
  ["with Range support", ""],
  ["without Range support", "norange=1"],
])("profile=fast %s", (_label, params) => {
  const ranged = params === "";

  it.each(fixtures)("$file", async (fx) => {
    const size = await sizeOf(fx.file);
    const { url, body, requests } = await fastInspect(fx.file, params);
    const { data, processing, projection } = body;

    expect(body).toMatchObject({ success: true, responseSource: "fresh", cached: false });
    expect(data.identity).toEqual({ url, finalUrl: url, mime: fx.mime, shareUrl: `http://service/v/${shareIdOf(url)}` });
    expect(data.semantic).toMatchObject({ kind: "direct-media", semanticType: fx.category });
    const { codecs, compatibility, ...playback } = data.playback;
    expect(playback).toEqual({ strategy: "native", component: component[fx.category], streamable: ranged, downloadable: true });
    // The codecs string and verdicts come with the metadata the header gave (absent while the runner still reads it).
    if (data.metadata.video || data.metadata.audio) expect(typeof codecs === "string" && Object.keys(compatibility ?? {}).length === 6).toBe(true);
    else expect(codecs).toBeUndefined();
    expect(data.metadata.filename).toBe(fx.file);
    expect(data.metadata.size.bytes).toBe(size);
    expect(data.metadata.size.formatted).toMatch(/^\d+(\.\d)? (B|kB|MB)$/);

    // SPEC 4.3 rule 1: generated previews hidden, no heavy or full-only fields.
    expect(projection).toEqual({ profile: "fast", hiddenFields: ["preview"] });
    expect(data.preview).toBeUndefined();
    expect(data.playback.html).toBeUndefined();
    expect(data.diagnostics).toBeUndefined();
    expect(data.providerData).toBeUndefined();
    expect(data.provider).toBeUndefined();

    // Sub-objects are exclusive to the category.
    for (const other of ["video", "audio", "image"].filter((c) => c !== fx.category)) expect(data.metadata).not.toHaveProperty(other);
    expect(processing.completedStages).toEqual(expect.arrayContaining(["semantic", "mediaFormat"]));

    if (fx.category === "video") {
      // The container header holds the video facts (issue 9): read at the edge whenever its bytes are reachable
      // (a moov at the end needs a Range request). Previews need the media runner: honestly pending.
      const headerReadable = ranged || fx.file !== "video-moov-end.mp4";
      if (headerReadable) {
        expect(data.metadata.video).toMatchObject({ width: expect.any(Number), height: expect.any(Number), codec: expect.any(String) });
        expect(data.metadata.video.duration.seconds).toBeGreaterThan(0);
        expect(processing.pendingStages).toEqual(previewStages);
      } else {
        expect(data.metadata.video).toBeNull();
        expect(processing.pendingStages).toEqual(["metadata:video", ...previewStages]);
      }
      expect(processing).toMatchObject({ status: "partial", enrichmentsPending: true });
      expect(processing.completion).toBeLessThan(1);
    }
    if (fx.category === "audio") {
      if (ranged || fitsInHead(size)) {
        const audio = data.metadata.audio;
        expect(Math.abs(audio.duration.seconds - fx.audio!.seconds)).toBeLessThan(0.1);
        expect(audio.duration.formatted).toBe(`0:0${fx.audio!.seconds}`);
        expect(audio.sampleRate).toBe(fx.audio!.sampleRate);
        expect(audio.bitrate.bps).toBeGreaterThan(0);
        expect(processing).toEqual({ status: "complete", completion: 1, enrichmentsPending: false,
          completedStages: ["semantic", "mediaFormat", "metadata:audio", "metadata:provenance"], pendingStages: [] });
      } else {
        // The container facts sit past the first 64 KiB streamed and the origin cannot seek: left to the runner.
        expect(data.metadata.audio).toBeNull();
        expect(processing).toMatchObject({ status: "partial", enrichmentsPending: true, pendingStages: ["metadata:audio"] });
      }
    }
    if (fx.category === "image") {
      // Still images: one frame; EXIF orientation reported when the file has one.
      expect(data.metadata.image).toEqual({ ...fx.image, frames: 1, ...(fx.file.includes("orientation-6") ? { orientation: 6 } : {}) });
      expect(processing.completedStages).toContain("metadata:image");
      expect(processing.pendingStages).toEqual(previewStages);
    }

    // What the origin saw: one Range probe of the head first. For audio and video never an unbounded GET (an
    // image's previews are made from a full GET of the small file, in the background after the answer).
    expect(requests.length).toBeGreaterThanOrEqual(1);
    // URLs named like front-loaded audio (.mp3, .flac, .ogg, .wav) start with 4 KiB (PROBE_FRONT_HEAD_BYTES).
    const head = /\.(mp3|flac|ogg|wav)$/.test(fx.file) ? 4 * 1024 : probeHeadBytes;
    expect(requests[0]!.range).toBe(`bytes=0-${head - 1}`);
    if (fx.category !== "image") {
      // Names of containers that may keep facts at the end also get one suffix read, sent with the head.
      for (const r of requests) expect(r.range, `request without Range: ${r.path}`).toMatch(/^bytes=(\d+-\d+|-\d+)$/);
      expect(requests.filter((r) => r.range?.startsWith("bytes=-")).length).toBeLessThanOrEqual(1);
      if (!ranged) expect(requests.filter((r) => !r.range?.startsWith("bytes=-"))).toHaveLength(1);
    }
  });
});

describe("bytes pulled for a fast inspection of a video", () => {
  it("faststart MP4 whose moov fits in the head: the 16 KiB head and the suffix sent with it, nothing else", async () => {
    const size = await sizeOf("video.mp4");
    const moovOffset = await topLevelBoxOffset("video.mp4", "moov");
    expect(moovOffset).toBeLessThan(probeHeadBytes / 2);
    const { body, requests } = await fastInspect("video.mp4");
    expect(body.data.metadata.video).toMatchObject({ width: 640, height: 360, codec: "h264", faststart: true });
    // The name cannot tell a faststart file: the 32 KiB suffix goes out with the head (no round trip of its own).
    expect(requests.map((r) => [r.range, r.bytes])).toEqual([[`bytes=0-${probeHeadBytes - 1}`, probeHeadBytes], ["bytes=-32768", Math.min(size, 32768)]]);
    const pulled = requests.reduce((sum, r) => sum + r.bytes, 0);
    expect(pulled).toBeLessThan(size / 10);
  });

  it("moov-at-end MP4: the head, then the moov box read from the tail with a Range request", async () => {
    const size = await sizeOf("video-moov-end.mp4");
    const moovOffset = await topLevelBoxOffset("video-moov-end.mp4", "moov");
    expect(moovOffset).toBeGreaterThan(size / 2); // the fixture really has its moov at the end
    const { body, requests } = await fastInspect("video-moov-end.mp4");
    expect(body.data.semantic.semanticType).toBe("video");
    const suffixStart = Math.max(0, size - 32768);
    expect(requests.map((r) => [r.range, r.bytes])).toEqual([
      [`bytes=0-${probeHeadBytes - 1}`, probeHeadBytes],
      // The suffix sent with the head; the box walk reads what is left of the file from the moov on, in one
      // request for what the suffix does not hold (none when the moov is in it).
      ["bytes=-32768", size - suffixStart],
      ...(moovOffset < suffixStart ? [[`bytes=${moovOffset}-${suffixStart - 1}`, suffixStart - moovOffset]] : []),
    ]);
    const pulled = requests.reduce((sum, r) => sum + r.bytes, 0);
    expect(pulled).toBeLessThan(size / 10);
  });

  it("without Range support: a single read, which the Worker stops reading after the head", async () => {
    const size = await sizeOf("video-moov-end.mp4");
    const { body, requests } = await fastInspect("video-moov-end.mp4", "norange=1");
    // Still a video, classified from the head alone (nothing past the head is requested).
    expect(body.data.semantic.semanticType).toBe("video");
    expect(body.data.metadata.size.bytes).toBe(size);
    // Besides the suffix sent with the head (answered 200 by this origin, and given up with the connection).
    expect(requests.filter((r) => r.range !== "bytes=-32768")).toHaveLength(1);
    expect(requests.length).toBeLessThanOrEqual(2);
  });
});

describe("MIME type: the bytes win over Content-Type", () => {
  it.each([
    ["video.mp4", "application/octet-stream", "video/mp4"],
    ["video.mp4", "audio/mpeg", "video/mp4"],
    ["video.webm", "text/plain", "video/webm"],
    ["audio.mp3", "application/octet-stream", "audio/mpeg"],
    ["audio.mp3", "video/mp4", "audio/mpeg"],
    ["audio.ogg", "text/html", "audio/ogg"],
    ["audio.flac", "application/octet-stream", "audio/flac"],
    ["audio.wav", "image/png", "audio/wav"],
    ["audio.m4a", "video/mp4", "audio/mp4"],
    ["png-alpha.png", "image/jpeg", "image/png"],
    ["jpeg-rgb.jpg", "application/octet-stream", "image/jpeg"],
    ["webp-alpha.webp", "image/gif", "image/webp"],
    ["gif-opaque.gif", "text/plain; charset=utf-8", "image/gif"],
  ])("%s served as %s -> %s", async (file, declared, mime) => {
    for (const range of ["", "&norange=1"]) {
      const { body } = await fastInspect(file, `type=${encodeURIComponent(declared)}${range}`);
      expect(body.data.identity.mime).toBe(mime);
      expect(body.data.semantic.semanticType).toBe(mime.split("/")[0]);
    }
  });
});

describe("filename", () => {
  it.each([
    [`attachment; filename="holiday clip.mp4"`, "holiday clip.mp4"],
    [`inline; filename*=UTF-8''na%C3%AFve%20song.ogg; filename="naive song.ogg"`, "naïve song.ogg"],
    [`attachment; filename="../../etc/passwd"`, "passwd"],
  ])("from Content-Disposition %s", async (disposition, filename) => {
    const { body } = await fastInspect("audio.ogg", `disposition=${encodeURIComponent(disposition)}`);
    expect(body.data.metadata.filename).toBe(filename);
  });

  it("from the final URL's path after redirects", async () => {
    const n = crypto.randomUUID().slice(0, 8);
    const { status, body } = await inspect(`${origin}/redirect/2/media/audio.flac?n=${n}`, "profile=fast");
    expect(status).toBe(200);
    expect(body.data.metadata.filename).toBe("audio.flac");
  });
});

describe("not media", () => {
  it("a text/html page -> 200 with kind webpage, not an error", async () => {
    const url = `${origin}/page.html?n=${crypto.randomUUID().slice(0, 8)}`;
    const { status, body } = await inspect(url, "profile=fast");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.success).toBe(true);
    expect(body.data.identity).toMatchObject({ url, finalUrl: url, mime: "text/html" });
    expect(body.data.semantic.kind).toBe("webpage");
    expect(body.data.semantic.semanticType).toBeUndefined();
    expect(body.data.playback).toMatchObject({ strategy: "link", streamable: false });
    expect(body.data.metadata).not.toHaveProperty("video");
    expect(body.data.metadata).not.toHaveProperty("audio");
    expect(body.data.metadata).not.toHaveProperty("image");
    // Nothing generated for a page, so nothing is hidden.
    expect(body.projection).toEqual({ profile: "fast", hiddenFields: [] });
  });
});

/** Offset of a top-level ISO-BMFF box, read from the file as the origin serves it. */
async function topLevelBoxOffset(file: string, type: string): Promise<number> {
  const bytes = new Uint8Array(await (await fetch(`${origin}/media/${file}`)).arrayBuffer());
  const view = new DataView(bytes.buffer);
  for (let offset = 0; offset + 8 <= bytes.byteLength; ) {
    let size = view.getUint32(offset);
    const name = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    if (size === 1) size = Number(view.getBigUint64(offset + 8));
    if (name === type) return offset;
    if (size < 8) break;
    offset += size;
  }
  throw new Error(`${file} has no top-level ${type} box`);
}
