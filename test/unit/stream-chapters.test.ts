// Chapters a stream declares: a WebVTT chapters file named by a DASH text AdaptationSet with Role "chapters", or
// by an HLS multivariant playlist's EXT-X-SESSION-DATA com.apple.hls.chapters (Apple's JSON, or WebVTT). The WebVTT
// is ffmpeg's (converted from SRT), and ffprobe's reading of it is the reference; hostile chapter files are bounded.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { inspectManifest, type FetchedManifest } from "../../worker/manifest/index.ts";
import { parseChapterFile, webvttChapters } from "../../worker/manifest/stream-chapters.ts";
import { maxListedChapters } from "../../shared/shapes/tracks.ts";

const dir = join(tmpdir(), "media-inspect-stream-chapters");
const origin = "https://media.example/";
let vtt = "";
let reference: { start: number; title: string }[] = [];

beforeAll(() => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "ch.srt"), "1\n00:00:00,000 --> 00:00:01,250\nIntro\n\n2\n00:00:01,250 --> 00:01:02,500\nMain part\n\n3\n00:01:02,500 --> 01:00:00,000\nCredits\n");
  execFileSync("ffmpeg", ["-v", "error", "-y", "-i", join(dir, "ch.srt"), join(dir, "ch.vtt")]);
  vtt = readFileSync(join(dir, "ch.vtt"), "utf8");
  const packets = (JSON.parse(execFileSync("ffprobe", ["-v", "quiet", "-of", "json", "-show_entries", "packet=pts_time", join(dir, "ch.vtt")]).toString("utf8")) as { packets: { pts_time: string }[] }).packets;
  // The cue texts as ffmpeg reads them back (its SRT writer: number, timing, text, blank line).
  const titles = execFileSync("ffmpeg", ["-v", "error", "-i", join(dir, "ch.vtt"), "-f", "srt", "-"]).toString("utf8").trim().split(/\r?\n\r?\n/).map((cue) => cue.split(/\r?\n/)[2]!);
  reference = packets.map((p, i) => ({ start: Number(p.pts_time), title: titles[i]! }));
}, 30_000);

function fetcher(files: Record<string, string>) {
  return async (url: string): Promise<FetchedManifest> => {
    const text = files[new URL(url).pathname.slice(1)];
    if (text === undefined) throw new Error(`no ${url}`);
    return { text, finalUrl: url };
  };
}

function expectReference(chapters: { start: number; title?: string }[] | undefined): void {
  expect(reference).toHaveLength(3);
  expect(chapters?.map((c) => c.title)).toEqual(reference.map((r) => r.title));
  chapters!.forEach((c, i) => expect(Math.abs(c.start - reference[i]!.start)).toBeLessThanOrEqual(0.05));
}

const master = (uri: string) => `#EXTM3U\n#EXT-X-SESSION-DATA:DATA-ID="com.apple.hls.chapters",URI="${uri}"\n`
  + `#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2"\nv.m3u8\n`;
const media = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns0.ts\n#EXT-X-ENDLIST\n";

describe("HLS chapters (EXT-X-SESSION-DATA com.apple.hls.chapters)", () => {
  it("a WebVTT chapter list: starts within 0.05 s of ffprobe's and the cue titles ffmpeg reads", async () => {
    const facts = await inspectManifest("hls", { text: master("ch.vtt"), finalUrl: `${origin}m.m3u8` }, fetcher({ "v.m3u8": media, "ch.vtt": vtt }));
    expectReference(facts.trackFacts?.chapters);
    expect(facts.manifestsRead).toContain(`${origin}ch.vtt`);
  });

  it("Apple's JSON chapter list", async () => {
    const json = JSON.stringify([
      { chapter: 1, "start-time": 0, duration: 1.25, titles: [{ language: "en", title: "Intro" }] },
      { chapter: 2, "start-time": 1.25, titles: [{ language: "en", title: "Main part" }] },
    ]);
    const facts = await inspectManifest("hls", { text: master("ch.json"), finalUrl: `${origin}m.m3u8` }, fetcher({ "v.m3u8": media, "ch.json": json }));
    expect(facts.trackFacts?.chapters).toEqual([{ start: 0, title: "Intro" }, { start: 1.25, title: "Main part" }]);
  });

  it("a chapter list that cannot be fetched leaves the chapters out, the stream read", async () => {
    const facts = await inspectManifest("hls", { text: master("gone.vtt"), finalUrl: `${origin}m.m3u8` }, fetcher({ "v.m3u8": media }));
    expect(facts.trackFacts?.chapters).toBeUndefined();
    expect(facts.durationSeconds).toBe(4);
  });
});

const mpd = `<?xml version="1.0"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT10S" minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-live:2011">
  <Period id="p0">
    <AdaptationSet contentType="video" mimeType="video/mp4">
      <SegmentTemplate timescale="1000" duration="2000" initialization="v_init.mp4" media="v_$Number$.m4s" startNumber="1"/>
      <Representation id="v0" codecs="avc1.64001e" width="640" height="360" bandwidth="800000"/>
    </AdaptationSet>
    <AdaptationSet contentType="text" mimeType="text/vtt" lang="en">
      <Role schemeIdUri="urn:mpeg:dash:role:2011" value="subtitle"/>
      <Representation id="s0" bandwidth="1000"><BaseURL>subs/en.vtt</BaseURL></Representation>
    </AdaptationSet>
    <AdaptationSet contentType="text" mimeType="text/vtt" lang="en">
      <Role schemeIdUri="urn:mpeg:dash:role:2011" value="chapters"/>
      <Representation id="c0" bandwidth="100"><BaseURL>meta/ch.vtt</BaseURL></Representation>
    </AdaptationSet>
  </Period>
</MPD>`;

describe("DASH chapters (a text AdaptationSet with Role chapters)", () => {
  it("the WebVTT chapters, the track listed as chapters, not as a subtitle", async () => {
    const facts = await inspectManifest("dash", { text: mpd, finalUrl: `${origin}dash/a.mpd` }, fetcher({ "dash/meta/ch.vtt": vtt }));
    expectReference(facts.trackFacts?.chapters);
    expect(facts.trackFacts?.tracks?.text.map((t) => t.kind)).toEqual(["subtitles", "chapters"]);
    expect(facts.streaming.subtitles).toHaveLength(1);
  });
});

describe("hostile chapter files", () => {
  it("a million cues: the listed limit, in one linear pass", () => {
    const cues: string[] = ["WEBVTT", ""];
    for (let i = 0; i < 1_000_000; i++) {
      const s = i % 60;
      const m = Math.floor(i / 60) % 60;
      const h = Math.floor(i / 3600);
      cues.push(`${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}.000 --> 99:00:00.000`, `c${i}`, "");
    }
    const text = cues.join("\n");
    const started = performance.now();
    const chapters = webvttChapters(text);
    expect(chapters).toHaveLength(maxListedChapters);
    expect(chapters[1]).toEqual({ start: 1, title: "c1" });
    // Over the file cap, nothing is parsed at all.
    expect(parseChapterFile(text)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(5_000);
  }, 60_000);

  it("garbage, a timing line with no cue, a 100 KB line and broken JSON give no chapters", () => {
    expect(parseChapterFile("WEBVTT\n\n" + "x".repeat(100_000) + "\n")).toEqual([]);
    expect(parseChapterFile("WEBVTT\n\n00:00.000 --> 00:01.000")).toEqual([]);
    expect(parseChapterFile("{\"a\":")).toEqual([]);
    expect(parseChapterFile(JSON.stringify({ "start-time": 1 }))).toEqual([]);
    expect(parseChapterFile(JSON.stringify([{ "start-time": -5 }, { "start-time": "x" }]))).toEqual([]);
  });
});
