// Issue 10, item 3: `fast` in one round trip. The first Range request is at most 16 KiB (one TCP initial
// window); every reader that needs more asks for exactly that. Each file here (testkit/head-fixtures.ts)
// keeps its facts past the head, and `fast` must still report what ffprobe reports (reference computed in
// global-setup), while the origin sees a first request of at most 16 KiB and far less than the file overall.
import { describe, expect, it } from "vitest";
import { inspect, media, origin, originStats } from "../../../testkit/worker/helpers.ts";
import { fixtureFacts } from "../../../testkit/worker/fixture-facts.ts";

const KiB = 1024;
const headBytes = 16 * KiB;
/** URLs named like front-loaded audio get a 4 KiB first read (PROBE_FRONT_HEAD_BYTES). */
const frontHeadBytes = 4 * KiB;
const frontLoaded = new Set(["big-picture.flac", "big-id3.mp3", "long.ogg", "long-opus.ogg"]);
const reference = await fixtureFacts("ffprobeFacts");
/**
 * The suffix read sent together with the head for names of containers that may keep facts at the end
 * (worker/probe/head-size.ts): it costs no round trip, and is allowed on top of each case's budget below.
 */
const suffixBytes: Record<string, number> = {
  "moov-end.m4a": 32 * KiB, "big-moov.mp4": 32 * KiB, "big-moov-end.mp4": 32 * KiB, "late-tracks.mkv": 64 * KiB,
  "big-picture.flac": KiB, "big-id3.mp3": KiB, "long.ogg": 8 * KiB, "long-opus.ogg": 8 * KiB,
};

async function requestsFor(url: string) {
  const n = new URL(url).searchParams.get("n")!;
  return (await originStats()).requests.filter((r) => new URL(r.path, origin).searchParams.get("n") === n);
}

async function sizeOf(file: string): Promise<number> {
  return (await (await fetch(`${origin}/media/${file}`)).arrayBuffer()).byteLength;
}

async function fast(file: string) {
  const url = media(file);
  const { status, body } = await inspect(url, "profile=fast");
  expect(status, JSON.stringify(body)).toBe(200);
  const requests = await requestsFor(url);
  // The first request the origin saw is the probe: 16 KiB asked (4 KiB for front-loaded audio), no more sent.
  const head = frontLoaded.has(file) ? frontHeadBytes : headBytes;
  expect(requests[0]!.range).toBe(`bytes=0-${head - 1}`);
  expect(requests[0]!.bytes).toBeLessThanOrEqual(head);
  for (const r of requests) expect(r.range, `request without Range: ${r.path}`).toMatch(/^bytes=(\d+-\d+|-\d+)$/);
  // At most one suffix read, sent with the head (issue 22 item 3), no larger than the plan for the file's name.
  const suffixes = requests.filter((r) => r.range?.startsWith("bytes=-"));
  expect(suffixes.length).toBeLessThanOrEqual(1);
  for (const r of suffixes) expect(Number(r.range!.slice("bytes=-".length))).toBeLessThanOrEqual(suffixBytes[file] ?? 0);
  return { body, requests, pulled: requests.reduce((n, r) => n + r.bytes, 0), size: await sizeOf(file), suffix: suffixes.length };
}

const within2Percent = (actual: number, expected: number) => expect(Math.abs(actual - expected) / expected).toBeLessThanOrEqual(0.02);

interface AvCase {
  file: string;
  category: "audio" | "video";
  evidence: string;
  /** Most bytes the whole fast inspection may pull (the facts' own bytes plus small follow-up reads). */
  maxPulled: number;
  /** Most requests, the head's included, when the case bounds them. */
  maxRequests?: number;
}

/** A moov walk fetches a 2 KiB window at each box header it does not hold (mp4-boxes.ts, moovWindowBytes). */
const moovWindow = 2 * KiB;

const avCases: AvCase[] = [
  // moov (6 KB) at the end: the head, the moov's header and the moov.
  { file: "moov-end.m4a", category: "audio", evidence: "tracks:mp4-moov", maxPulled: 40 * KiB },
  // 76 KiB moov at the start: the head holds the first trak's header boxes; one window at the second trak.
  { file: "big-moov.mp4", category: "video", evidence: "tracks:mp4-moov", maxPulled: headBytes + moovWindow, maxRequests: 2 },
  // The same moov at the end (76 KB after the mdat, to the end of the file): its offset and size are known from
  // the mdat's header and the file's size, so what the suffix sent with the head did not hold is read in one
  // request (issue 22 item 3: round trips, not bytes), not a window at the moov and one at the second trak.
  { file: "big-moov-end.mp4", category: "video", evidence: "tracks:mp4-moov", maxPulled: headBytes + 48 * KiB, maxRequests: 2 },
  // A 24 KB Info before Tracks: both read, the clusters never.
  { file: "late-tracks.mkv", category: "video", evidence: "tracks:matroska-tracks", maxPulled: 48 * KiB },
  // A 95 KB picture block is skipped, not read.
  { file: "big-picture.flac", category: "audio", evidence: "bytes:audio/flac", maxPulled: 40 * KiB },
  // music-metadata reads the 95 KB ID3v2 tag (as it does over Range on its own), then a small window of frames.
  { file: "big-id3.mp3", category: "audio", evidence: "bytes:audio/mpeg", maxPulled: 96_938 + 40 * KiB },
  // The duration is on the last page: one small read at the end.
  { file: "long.ogg", category: "audio", evidence: "tracks:ogg-headers", maxPulled: 32 * KiB },
  { file: "long-opus.ogg", category: "audio", evidence: "bytes:audio/ogg; codecs=opus", maxPulled: 32 * KiB },
];

describe("fast with a 16 KiB head: the same facts as ffprobe, the first request at most 16 KiB", { timeout: 20_000 }, () => {
  it.each(avCases)("$file", async (c) => {
    const { body, requests, pulled, size, suffix } = await fast(c.file);
    const ref = reference[c.file]!;
    expect(body.data.semantic.semanticType).toBe(c.category);
    expect(body.data.semantic.enrichmentSources, JSON.stringify(body.data.semantic)).toContain(c.evidence);
    expect(body.processing.completedStages).toContain(`metadata:${c.category}`);
    const meta = body.data.metadata[c.category];
    expect(meta, JSON.stringify(body.data.metadata)).toBeTruthy();
    within2Percent(meta.duration.seconds, ref.duration!);
    if (c.category === "audio") {
      expect(meta.sampleRate).toBe(ref.audio!.sampleRate);
      expect(meta.channels).toBe(ref.audio!.channels);
      expect(meta.codec).toBe(ref.audio!.codec);
    } else {
      expect([meta.width, meta.height]).toEqual([ref.video!.width, ref.video!.height]);
      expect(meta.codec).toBe(ref.video!.codec);
      expect(meta.fps).toBe(25);
    }
    expect(pulled).toBeLessThanOrEqual(c.maxPulled + (suffix ? suffixBytes[c.file]! : 0));
    if (c.maxRequests !== undefined) expect(requests.length).toBeLessThanOrEqual(c.maxRequests + suffix);
    // What the readers asked for, beside the suffix sent on the name's hint (64 KiB of a 130 KB .mkv here).
    expect(pulled - (suffix ? suffixBytes[c.file]! : 0)).toBeLessThan(size / 2);
  });

  it("a JPEG whose frame header follows a 64 KiB EXIF, 30 KB of APP13 and an ICC profile", async () => {
    const { body, requests, pulled, size } = await fast("big-exif.jpeg");
    const ref = reference["big-exif.jpeg"]!;
    const image = body.data.metadata.image;
    // ffprobe ignores EXIF: the displayed size is its size turned a quarter.
    expect(image).toMatchObject({ width: ref.video!.height, height: ref.video!.width, orientation: 6, hasAlpha: false, frames: 1 });
    // The profile is the committed Display P3 JPEG's: the same colour space the service reads from that file.
    const p3 = await inspect(media("jpeg-p3.jpg"), "profile=fast");
    expect(image.colorSpace).toBe(p3.body.data.metadata.image.colorSpace);
    expect(image.colorSpace).toBe("display-p3");
    // The head, then one small read at each skipped segment's end: never the EXIF or APP13 bodies.
    expect(requests.length).toBeLessThanOrEqual(3);
    expect(pulled).toBeLessThanOrEqual(headBytes + 2 * 8 * KiB);
    expect(pulled).toBeLessThan(size / 3);
  });

  it("an HTML page whose title follows 40 KB of head", async () => {
    const url = `${origin}/html-page?${new URLSearchParams({ n: crypto.randomUUID().slice(0, 8), title: "After a long head", pad: String(40_000) })}`;
    const { status, body } = await inspect(url, "profile=fast");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(JSON.stringify(body.data)).toContain("After a long head");
    const requests = await requestsFor(url);
    expect(requests[0]!.range).toBe(`bytes=0-${headBytes - 1}`);
    expect(requests[0]!.bytes).toBeLessThanOrEqual(headBytes);
  });
});

describe("full on an edge JPEG: the head is reused, the rest fetched once", { timeout: 30_000 }, () => {
  it("big-exif.jpeg: at most the file plus 16 KiB crosses the wire", async () => {
    const url = media("big-exif.jpeg");
    const { status, body } = await inspect(url, "profile=full");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.preview.thumbnail?.url, JSON.stringify(body.data.preview)).toMatch(/^\/api\/v1\/thumbnails\//);
    const requests = await requestsFor(url);
    expect(requests[0]!.range).toBe(`bytes=0-${headBytes - 1}`);
    const pulled = requests.reduce((n, r) => n + r.bytes, 0);
    const size = await sizeOf("big-exif.jpeg");
    expect(pulled).toBeGreaterThanOrEqual(size);
    expect(pulled).toBeLessThanOrEqual(size + headBytes);
  });
});
