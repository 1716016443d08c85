// Tracks, chapters and encryption read at the edge from the container header (MP4 moov, Matroska Tracks and
// Chapters), compared with what ffprobe lists for files ffmpeg makes here; encryption from ffmpeg's CENC writer
// and from pssh boxes written by hand; hostile tables bounded.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RangeByteSource } from "../../worker/bytes/byte-source.ts";
import type { FetchPolicy } from "../../worker/fetch/index.ts";
import { sniffMime } from "../../worker/probe/sniff-mime.ts";
import { readEdgeMediaFacts } from "../../worker/probe/edge-media-facts.ts";
import { matroskaChapters } from "../../worker/probe/matroska-extras.ts";
import { ceaCaptions } from "../../worker/probe/cea-captions.ts";
import { bcp47Language } from "../../shared/media/languages.ts";
import { maxListedChapters } from "../../shared/shapes/tracks.ts";
import { ensureTrackFixtures, playready, pssh, widevine, withMoovBoxes } from "../../testkit/track-fixtures.ts";

const dir = join(tmpdir(), "media-inspect-track-fixtures");
const ffprobeBin = process.env.FFPROBE_PATH ?? "ffprobe";

interface ProbeStream { index: number; codec_type: string; codec_name: string; tags?: { language?: string }; disposition?: Record<string, number> }
interface Probe { streams: ProbeStream[]; chapters: { start_time: string; tags?: { title?: string } }[] }

function ffprobe(file: string): Probe {
  return JSON.parse(execFileSync(ffprobeBin, ["-v", "quiet", "-of", "json", "-show_streams", "-show_chapters", join(dir, file)]).toString("utf8")) as Probe;
}

async function edgeFacts(bytes: Uint8Array) {
  const head = bytes.subarray(0, 16 * 1024);
  const mime = await sniffMime(head, undefined);
  const source = new RangeByteSource("http://127.0.0.1:9/unused", bytes.length, true, {} as FetchPolicy, bytes.length, 1024);
  source.addSegment(0, bytes);
  return { mime, facts: await readEdgeMediaFacts(source, mime, head) };
}
const fileFacts = (file: string) => edgeFacts(new Uint8Array(readFileSync(join(dir, file))));

beforeAll(() => { ensureTrackFixtures(dir); }, 120_000);

describe("MP4 tracks at the edge match ffprobe", () => {
  it("subtitle tracks (tx3g) with languages, default and forced; audio languages; the described-audio track; chpl chapters", async () => {
    const ref = ffprobe("subs.mp4");
    const { facts } = await fileFacts("subs.mp4");
    const t = facts!.trackFacts!.tracks!;
    const refAudio = ref.streams.filter((s) => s.codec_type === "audio");
    expect(t.audio.map((a) => a.language)).toEqual(refAudio.map((a) => bcp47Language(a.tags?.language)));
    expect(t.audio.map((a) => a.default)).toEqual(refAudio.map((a) => a.disposition?.default === 1));
    expect(t.audio[1]!.role).toBe("description");
    expect(t.audio[0]!.codec).toBe("aac");
    const refText = ref.streams.filter((s) => s.codec_type === "subtitle");
    const subtitles = t.text.filter((x) => x.kind !== "chapters");
    expect(subtitles.map((x) => x.format)).toEqual(refText.map(() => "tx3g"));
    expect(subtitles.map((x) => x.language)).toEqual(refText.map((s) => bcp47Language(s.tags?.language)));
    expect(subtitles.map((x) => x.default)).toEqual(refText.map((s) => s.disposition?.default === 1));
    expect(subtitles.map((x) => x.forced === true)).toEqual(refText.map((s) => s.disposition?.forced === 1));
    expect(subtitles[0]).toMatchObject({ kind: "subtitles", language: "es" });
    expect(subtitles[1]).toMatchObject({ language: "de", forced: true });
    // The QuickTime chapter track ffmpeg writes is listed as what it is, not as subtitles.
    expect(t.text.filter((x) => x.kind === "chapters")).toHaveLength(1);
    const chapters = facts!.trackFacts!.chapters!;
    expect(chapters.map((c) => c.title)).toEqual(ref.chapters.map((c) => c.tags?.title));
    chapters.forEach((c, i) => expect(Math.abs(c.start - Number(ref.chapters[i]!.start_time))).toBeLessThanOrEqual(0.05));
    expect(facts!.trackFacts!.protection).toBeUndefined();
  });

  it("ffmpeg's CENC (cenc-aes-ctr): encrypted, scheme cenc, the real codecs, no key system named (no pssh)", async () => {
    const { facts } = await fileFacts("enc.mp4");
    expect(facts!.trackFacts!.protection).toEqual({ encrypted: true, scheme: "cenc", keySystems: [] });
    expect(facts!.video?.codec).toBe("h264");
    expect(facts!.trackFacts!.tracks!.audio[0]!.codec).toBe("aac");
    expect(facts!.codecs?.[0]).toMatch(/^avc1\./);
  });

  it("pssh boxes written by hand name Widevine and PlayReady", async () => {
    const { facts } = await edgeFacts(withMoovBoxes(join(dir, "enc.mp4"), [pssh(widevine), pssh(playready)]));
    expect(facts!.trackFacts!.protection).toEqual({ encrypted: true, scheme: "cenc", keySystems: ["com.widevine.alpha", "com.microsoft.playready"] });
  });

  it("hostile: 100,000 pssh boxes give one bounded answer", async () => {
    const many = Array.from({ length: 100_000 }, (_, i) => pssh(i % 2 ? widevine : playready));
    const started = performance.now();
    const { facts } = await edgeFacts(withMoovBoxes(join(dir, "enc.mp4"), many));
    expect(facts!.trackFacts!.protection!.keySystems.sort()).toEqual(["com.microsoft.playready", "com.widevine.alpha"]);
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});

describe("Matroska tracks and chapters at the edge match ffprobe", () => {
  it("SRT, ASS and WebVTT tracks with languages and dispositions, audio languages and description, chapters", async () => {
    const ref = ffprobe("subs.mkv");
    const { facts } = await fileFacts("subs.mkv");
    const t = facts!.trackFacts!.tracks!;
    const refText = ref.streams.filter((s) => s.codec_type === "subtitle");
    expect(t.text.map((x) => x.format)).toEqual(["srt", "ass", "webvtt"]);
    expect(refText.map((s) => s.codec_name)).toEqual(["subrip", "ass", "webvtt"]);
    expect(t.text.map((x) => x.language)).toEqual(refText.map((s) => bcp47Language(s.tags?.language)));
    expect(t.text.map((x) => x.default)).toEqual(refText.map((s) => s.disposition?.default === 1));
    expect(t.text.map((x) => x.forced === true)).toEqual(refText.map((s) => s.disposition?.forced === 1));
    expect(t.text[2]!.kind).toBe("captions");
    const refAudio = ref.streams.filter((s) => s.codec_type === "audio");
    expect(t.audio.map((a) => a.language)).toEqual(refAudio.map((a) => bcp47Language(a.tags?.language)));
    expect(t.audio.map((a) => a.role === "description")).toEqual(refAudio.map((a) => a.disposition?.visual_impaired === 1));
    const chapters = facts!.trackFacts!.chapters!;
    expect(chapters.map((c) => c.title)).toEqual(ref.chapters.map((c) => c.tags?.title));
    chapters.forEach((c, i) => expect(Math.abs(c.start - Number(ref.chapters[i]!.start_time))).toBeLessThanOrEqual(0.05));
  });

  it("hostile: a Chapters element of a million atoms is cut at the listed limit in one linear walk", () => {
    // EditionEntry (45 B9, 8-byte size) holding 1,000,000 ChapterAtoms (B6 8C [91 88 <8-byte ns>] ...).
    const atom = new Uint8Array([0xb6, 0x8a, 0x91, 0x88, 0, 0, 0, 0, 0, 0, 0, 0]);
    const count = 1_000_000;
    const body = new Uint8Array(2 + 8 + atom.length * count);
    body.set([0x45, 0xb9, 0x01]);
    const size = atom.length * count;
    for (let i = 0; i < 7; i++) body[3 + i] = Math.floor(size / 256 ** (6 - i)) % 256;
    for (let i = 0; i < count; i++) {
      const at = 10 + i * atom.length;
      body.set(atom, at);
      const ns = i * 1_000_000;
      for (let k = 0; k < 8; k++) body[at + 4 + k] = Math.floor(ns / 256 ** (7 - k)) % 256;
    }
    const chapters = matroskaChapters(body);
    expect(chapters).toHaveLength(maxListedChapters);
    expect(chapters[1]!.start).toBe(0.001);
  });

  it("hostile: a file ffmpeg wrote with 200,000 chapters (7 MB Chapters element) keeps its tracks and lists no chapters", async () => {
    const started = performance.now();
    const { facts } = await fileFacts("many-chapters.mkv");
    expect(facts!.trackFacts!.tracks!.video).toHaveLength(1);
    expect(facts!.trackFacts!.chapters).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe("QuickTime chapter tracks at the edge match ffprobe", () => {
  it.each(["chapters.mov", "chapter-track.mp4"])("%s (a chapter track, no chpl): titles, starts within 0.05 s", async (file) => {
    const ref = ffprobe(file);
    expect(ref.chapters.length).toBe(2);
    const { facts } = await fileFacts(file);
    const chapters = facts!.trackFacts!.chapters!;
    expect(chapters.map((c) => c.title)).toEqual(ref.chapters.map((c) => c.tags?.title));
    chapters.forEach((c, i) => expect(Math.abs(c.start - Number(ref.chapters[i]!.start_time))).toBeLessThanOrEqual(0.05));
  });
});

describe("audio chapters at the edge match ffprobe", () => {
  it.each(["chapters.mp3", "chapters.flac"])("%s (ID3 CHAP, Vorbis CHAPTERxx): titles, starts within 0.05 s", async (file) => {
    const ref = ffprobe(file);
    expect(ref.chapters.length).toBe(2);
    const { facts } = await fileFacts(file);
    const chapters = facts!.trackFacts!.chapters!;
    expect(chapters.map((c) => c.title)).toEqual(ref.chapters.map((c) => c.tags?.title));
    chapters.forEach((c, i) => expect(Math.abs(c.start - Number(ref.chapters[i]!.start_time))).toBeLessThanOrEqual(0.05));
  });
});

/** Whether ffprobe sees A/53 caption side data on the first video frames (ffprobe 5.1's closed_captions says 0). */
function ffprobeSeesCaptions(file: string): boolean {
  const out = execFileSync(ffprobeBin, ["-v", "quiet", "-select_streams", "v:0", "-read_intervals", "%+#4", "-show_entries", "frame=pts:side_data=side_data_type",
    "-of", "json", join(dir, file)]).toString("utf8");
  return out.includes("ATSC A53 Part 4 Closed Captions");
}

describe("MPEG-TS tracks and CEA captions at the edge", () => {
  it("audio languages from the ISO 639 descriptor and the visual-impaired audio type, as ffprobe lists them", async () => {
    const ref = ffprobe("langs.ts");
    const { facts } = await fileFacts("langs.ts");
    const t = facts!.trackFacts!.tracks!;
    const refAudio = ref.streams.filter((s) => s.codec_type === "audio");
    expect(t.audio.map((a) => a.language)).toEqual(refAudio.map((a) => bcp47Language(a.tags?.language)));
    expect(t.audio.map((a) => a.role === "description")).toEqual(refAudio.map((a) => a.disposition?.visual_impaired === 1));
    expect(t.video.map((v) => v.codec)).toEqual(["h264"]);
    expect(t.text).toEqual([]);
  });

  it.each(["cc.ts", "cc.mp4"])("%s: CEA-608 in the H.264 SEI is a captions track exactly where ffprobe sees caption side data", async (file) => {
    expect(ffprobeSeesCaptions(file)).toBe(true);
    const { facts } = await fileFacts(file);
    expect(facts!.trackFacts!.tracks!.text).toEqual([{ kind: "captions", format: "cea-608" }]);
    expect(ffprobeSeesCaptions("langs.ts")).toBe(false);
  });

  it("hostile: a caption stream of garbage (GA94 signatures with broken cc_data, random bytes) flags nothing, in bounded time", () => {
    const junk = new Uint8Array(4 * 1024 * 1024);
    let x = 12345;
    for (let i = 0; i < junk.length; i++) { x = (x * 1103515245 + 12345) >>> 0; junk[i] = x >>> 24; }
    // Every 64 bytes a signature followed by cc_data whose marker bits are wrong.
    for (let i = 0; i + 20 < junk.length; i += 64) junk.set([0xb5, 0x00, 0x31, 0x47, 0x41, 0x39, 0x34, 0x03, 0x42, 0xff, 0x04, 0x41, 0x41], i);
    expect(ceaCaptions(junk)).toEqual([]);
    expect(ceaCaptions(new Uint8Array(0))).toEqual([]);
  });
});

describe("languages", () => {
  it("ISO 639-2 B and T codes become BCP 47; und and junk are dropped", () => {
    expect(bcp47Language("eng")).toBe("en");
    expect(bcp47Language("ger")).toBe("de");
    expect(bcp47Language("deu")).toBe("de");
    expect(bcp47Language("fre")).toBe("fr");
    expect(bcp47Language("pt-BR")).toBe("pt-BR");
    expect(bcp47Language("und")).toBeUndefined();
    expect(bcp47Language("e\u0000g")).toBeUndefined();
  });
});
