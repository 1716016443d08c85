// The runner's track facts: ffprobe's streams as track lists (languages, dispositions, subtitle formats) and the
// details probe (chapters, A/53 caption side data), read over loopback HTTP as the runner reads through its proxy.
import { execFileSync } from "node:child_process";
import { createReadStream, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureTrackFixtures } from "../../testkit/track-fixtures.ts";
import { probeDetails, toTracks, withDetails } from "../../media-runner/src/media/tracks.ts";
import type { FfprobeOutput } from "../../media-runner/src/media/ffprobe.ts";

const dir = join(tmpdir(), "media-inspect-track-fixtures");
const ffprobe = process.env.FFPROBE_PATH ?? "ffprobe";
const probe = (file: string) => JSON.parse(execFileSync(ffprobe, ["-v", "quiet", "-of", "json", "-show_format", "-show_streams", join(dir, file)]).toString("utf8")) as FfprobeOutput;
let server: Server;
let base = "";

beforeAll(async () => {
  ensureTrackFixtures(dir);
  server = createServer((req, res) => {
    const file = join(dir, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname.slice(1)));
    const size = statSync(file).size;
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    const start = range ? Number(range[1]) : 0;
    const end = range && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    res.writeHead(range ? 206 : 200, { "content-length": end - start + 1, "accept-ranges": "bytes", ...(range ? { "content-range": `bytes ${start}-${end}/${size}` } : {}) });
    createReadStream(file, { start, end }).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/`;
}, 120_000);
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The loopback server doubles as the HTTP proxy the runner's engines must use (they may open no other connection). */
const options = () => ({ ffprobe, timeoutMs: 20_000, maxPixels: 50_000_000, httpProxy: base.slice(0, -1) });

describe("runner tracks and details", () => {
  it("Matroska: SRT, ASS and WebVTT with languages and dispositions; audio description; chapters", async () => {
    const tracks = toTracks(probe("subs.mkv"));
    expect(tracks.text).toEqual([
      { kind: "subtitles", format: "srt", language: "es", default: true },
      { kind: "forced", format: "ass", language: "de", default: false, forced: true },
      { kind: "captions", format: "webvtt", language: "ja", default: false },
    ]);
    expect(tracks.audio.map((a) => [a.language, a.role])).toEqual([["en", undefined], ["fr", "description"]]);
    const details = await probeDetails(base + "subs.mkv", options());
    expect(details?.chapters).toEqual([{ start: 0, title: "Intro" }, { start: 1.25, title: "Main part" }]);
    expect(details?.captions).toBe(false);
  });

  it("MPEG-TS with A/53 captions: the details probe finds them where the stream's closed_captions says 0", async () => {
    const p = probe("cc.ts");
    expect((p.streams[0] as { closed_captions?: number }).closed_captions).toBe(0);
    const details = await probeDetails(base + "cc.ts", options());
    expect(details?.captions).toBe(true);
    expect(withDetails(toTracks(p), details).text).toEqual([{ kind: "captions", format: "cea-608" }]);
  });

  it("hostile: 200,000 chapters overflow the details probe's capped output: no chapters, no failure; the streams still read", async () => {
    expect(await probeDetails(base + "many-chapters.mkv", options())).toBeUndefined();
    expect(toTracks(probe("many-chapters.mkv")).video).toHaveLength(1);
  });

  it("MP3 chapters (ID3 CHAP) through the details probe; a file without them gives none", async () => {
    expect((await probeDetails(base + "chapters.mp3", options()))?.chapters.map((c) => c.title)).toEqual(["Intro", "Main part"]);
    expect((await probeDetails(base + "langs.ts", options()))?.chapters).toEqual([]);
  });
});
