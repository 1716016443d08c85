/** Hostile manifests end in a ManifestError with a reason, quickly, and never make us fetch what they name. */
import { describe, expect, it } from "vitest";
import { inspectManifest, ManifestError, manifestLimits, type FetchedManifest } from "../../worker/manifest/index.ts";
import { readAttributeList, scanHlsText } from "../../worker/manifest/hls-scan.ts";

const master = "https://media.example/master.m3u8";

function fetcher(pages: Record<string, string>) {
  const asked: string[] = [];
  return {
    asked,
    fetch: async (url: string): Promise<FetchedManifest> => {
      asked.push(url);
      const text = pages[url];
      if (text === undefined) throw new Error(`unexpected fetch of ${url}`);
      return { text, finalUrl: url };
    },
  };
}

async function failure(run: Promise<unknown>): Promise<string> {
  const error = await run.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ManifestError);
  return (error as ManifestError).reason;
}

const mediaPlaylist = (n: number) =>
  ["#EXTM3U", "#EXT-X-TARGETDURATION:2", ...Array.from({ length: n }, (_, i) => `#EXTINF:2,\ns${i}.ts`), "#EXT-X-ENDLIST"].join("\n");

describe("hostile HLS", () => {
  it("refuses a playlist of 100,000 segments by count, before parsing it", async () => {
    const started = performance.now();
    const reason = await failure(inspectManifest("hls", { text: mediaPlaylist(100_000), finalUrl: master }, fetcher({}).fetch));
    expect(reason).toBe(`the playlist has more than ${manifestLimits.maxSegments} segments`);
    // A count, not a parse: far below the ~700 ms m3u8-parser spends on it (bounded loosely for shared CI machines).
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("refuses a master that names itself as a variant without fetching it again", async () => {
    const loop = `#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nmaster.m3u8\n`;
    const { asked, fetch } = fetcher({});
    expect(await failure(inspectManifest("hls", { text: loop, finalUrl: master }, fetch))).toMatch(/loop/);
    expect(asked).toEqual([]);
  });

  it("refuses a variant that is itself a master (a variant loop through another URL)", async () => {
    const a = `#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nb.m3u8\n`;
    const b = `#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nmaster.m3u8\n`;
    const { asked, fetch } = fetcher({ "https://media.example/b.m3u8": b });
    expect(await failure(inspectManifest("hls", { text: a, finalUrl: master }, fetch))).toMatch(/itself a master/);
    expect(asked).toEqual(["https://media.example/b.m3u8"]);
  });

  it("refuses a variant that redirects back to the master", async () => {
    const a = `#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nv.m3u8\n`;
    const fetch = async (): Promise<FetchedManifest> => ({ text: a, finalUrl: master });
    expect(await failure(inspectManifest("hls", { text: a, finalUrl: master }, fetch))).toMatch(/loop/);
  });

  it("never fetches file:, data: or concat: URIs; they are not variants it can read", async () => {
    const text = [
      "#EXTM3U",
      "#EXT-X-STREAM-INF:BANDWIDTH=100,RESOLUTION=10x10", "file:///etc/passwd",
      "#EXT-X-STREAM-INF:BANDWIDTH=200,RESOLUTION=10x10", "concat:a.ts|b.ts",
      "#EXT-X-STREAM-INF:BANDWIDTH=300,RESOLUTION=10x10", "data:application/x-mpegurl,%23EXTM3U",
    ].join("\n");
    const { asked, fetch } = fetcher({});
    const facts = await inspectManifest("hls", { text, finalUrl: master }, fetch);
    expect(asked).toEqual([]);
    expect(facts.streaming.variants.map((v) => v.bandwidth)).toEqual([100, 200, 300]);
    expect(facts.preview).toBeUndefined();
  });

  it("resolves a variant naming a private address like any URL: the caller's fetcher (SSRF checks) decides", async () => {
    const text = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100\nhttp://10.0.0.5/v.m3u8\n";
    const fetch = async (url: string): Promise<FetchedManifest> => {
      throw new ManifestError(`refused ${url}`);
    };
    expect(await failure(inspectManifest("hls", { text, finalUrl: master }, fetch))).toBe("refused http://10.0.0.5/v.m3u8");
  });

  it("refuses more variants than the cap, and manifests above the byte cap", async () => {
    const many = ["#EXTM3U", ...Array.from({ length: manifestLimits.maxVariants + 1 }, (_, i) => `#EXT-X-STREAM-INF:BANDWIDTH=${i}\nv${i}.m3u8`)].join("\n");
    expect(await failure(inspectManifest("hls", { text: many, finalUrl: master }, fetcher({}).fetch))).toMatch(/more than 64 variants/);
    const big = "#EXTM3U\n" + "#".repeat(manifestLimits.maxManifestBytes);
    expect(await failure(inspectManifest("hls", { text: big, finalUrl: master }, fetcher({}).fetch))).toMatch(/larger than/);
  });

  it("refuses text that is not a playlist", async () => {
    expect(await failure(inspectManifest("hls", { text: "<html></html>", finalUrl: master }, fetcher({}).fetch))).toMatch(/#EXTM3U/);
    expect(await failure(inspectManifest("hls", { text: "", finalUrl: master }, fetcher({}).fetch))).toMatch(/#EXTM3U|empty/);
  });

  it("rejects the attribute lists that make the parser's regexes quadratic, in linear time", () => {
    const n = manifestLimits.maxHlsLineChars - 40;
    const shapes = ["a".repeat(n), ",".repeat(n), `BANDWIDTH=1${" ".repeat(n)}x`, `NAME="${",".repeat(n)}"`, `NAME="${" ".repeat(n)}x"`];
    for (const shape of shapes) expect(() => readAttributeList(shape, "EXT-X-STREAM-INF")).toThrow(ManifestError);
    expect(() => scanHlsText(`#EXTM3U\n#EXT-X-MEDIA:${"a".repeat(manifestLimits.maxHlsLineChars)}`)).toThrow(/longer than/);
  });

  it("parses a byte-cap-sized playlist of the worst accepted attribute lines quickly", async () => {
    // Each line: the most commas and whitespace a quoted value may hold, padded to the line limit.
    const value = `${"a,".repeat(manifestLimits.maxQuotedCommas)}${" ".repeat(manifestLimits.maxWhitespaceRun)}`;
    const line = `#EXT-X-SESSION-DATA:DATA-ID="x",VALUE="${value}${"b".repeat(manifestLimits.maxHlsLineChars - value.length - 60)}"`;
    const lines = Math.floor(manifestLimits.maxManifestBytes / (line.length + 1)) - 2;
    const text = ["#EXTM3U", ...Array.from({ length: lines }, () => line), "#EXTINF:2,", "s.ts", "#EXT-X-ENDLIST"].join("\n");
    const started = performance.now();
    const facts = await inspectManifest("hls", { text, finalUrl: master }, fetcher({}).fetch);
    expect(facts.durationSeconds).toBe(2);
    // Unguarded, one 64 kB malformed line alone took 13 s; this is linear work over 2 MiB.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("accepts the attribute lists real packagers write", () => {
    const attrs = readAttributeList('BANDWIDTH=950400,AVERAGE-BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2",FRAME-RATE=29.970,AUDIO="aud", VIDEO-RANGE=SDR', "EXT-X-STREAM-INF");
    expect(Object.fromEntries(attrs)).toEqual({
      BANDWIDTH: "950400", "AVERAGE-BANDWIDTH": "800000", RESOLUTION: "640x360", CODECS: "avc1.64001e,mp4a.40.2", "FRAME-RATE": "29.970", AUDIO: "aud", "VIDEO-RANGE": "SDR",
    });
  });
});

describe("hostile DASH", () => {
  const mpd = (body: string, root = 'type="static" mediaPresentationDuration="PT10S"') =>
    `<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" ${root}><Period>${body}</Period></MPD>`;

  it("a SegmentTimeline repeating a billion times is never expanded; the first segment is still planned", async () => {
    const text = mpd(`<AdaptationSet contentType="video" mimeType="video/mp4"><Representation id="v" bandwidth="1000" width="64" height="64" codecs="avc1.4d401e">
      <SegmentTemplate timescale="1" media="s-$Number$.m4s" initialization="i.mp4" startNumber="7"><SegmentTimeline><S t="0" d="1" r="1000000000"/></SegmentTimeline></SegmentTemplate>
      </Representation></AdaptationSet>`, 'type="static" mediaPresentationDuration="PT300000000S"');
    const started = performance.now();
    const facts = await inspectManifest("dash", { text, finalUrl: "https://m.example/a/x.mpd" }, fetcher({}).fetch);
    expect(facts.preview).toEqual({ segmentUrl: "https://m.example/a/s-7.m4s", initUrl: "https://m.example/a/i.mp4" });
    expect(facts.durationSeconds).toBe(300_000_000);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("a template without a timeline over a huge period plans one segment, not millions", async () => {
    const text = mpd(`<AdaptationSet contentType="video"><Representation id="v" bandwidth="1" width="8" height="8">
      <SegmentTemplate timescale="1000" duration="1" media="$RepresentationID$/$Number%05d$.m4s" initialization="$RepresentationID$/init.mp4"/>
      </Representation></AdaptationSet>`, 'type="static" mediaPresentationDuration="PT100000H"');
    const facts = await inspectManifest("dash", { text, finalUrl: "https://m.example/x.mpd" }, fetcher({}).fetch);
    expect(facts.preview).toEqual({ segmentUrl: "https://m.example/v/00001.m4s", initUrl: "https://m.example/v/init.mp4" });
  });

  it("refuses multiplying BaseURLs and too many periods", async () => {
    const bases = "<BaseURL>a/</BaseURL>".repeat(manifestLimits.maxDashBaseUrls + 1);
    expect(await failure(inspectManifest("dash", { text: mpd(bases), finalUrl: "https://m.example/x.mpd" }, fetcher({}).fetch))).toMatch(/BaseURL/);
    const periods = `<?xml version="1.0"?><MPD type="static">${"<Period/>".repeat(manifestLimits.maxDashPeriods + 1)}</MPD>`;
    expect(await failure(inspectManifest("dash", { text: periods, finalUrl: "https://m.example/x.mpd" }, fetcher({}).fetch))).toMatch(/periods/);
  });

  it("refuses XML that is not an MPD, and broken XML", async () => {
    expect(await failure(inspectManifest("dash", { text: "<?xml version='1.0'?><feed/>", finalUrl: "https://m.example/x.mpd" }, fetcher({}).fetch))).toMatch(/MPD/);
    expect(await failure(inspectManifest("dash", { text: "<MPD><Period>", finalUrl: "https://m.example/x.mpd" }, fetcher({}).fetch))).toBeTruthy();
  });

  it("a dynamic MPD is live with no duration; ContentProtection marks it encrypted with its scheme", async () => {
    const text = mpd(`<AdaptationSet contentType="video"><ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc"/>
      <ContentProtection schemeIdUri="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"/><Representation id="v" bandwidth="5" width="8" height="8"/></AdaptationSet>
      <AdaptationSet contentType="text" lang="de"><Role schemeIdUri="urn:mpeg:dash:role:2011" value="forced-subtitle"/><Representation id="t" bandwidth="1" mimeType="text/vtt"/></AdaptationSet>`,
      'type="dynamic" availabilityStartTime="2020-01-01T00:00:00Z"');
    const facts = await inspectManifest("dash", { text, finalUrl: "https://m.example/x.mpd" }, fetcher({}).fetch);
    expect(facts.streaming).toMatchObject({ live: true, encrypted: true, encryption: "cenc", subtitles: [{ language: "de", forced: true }] });
    expect(facts.durationSeconds).toBeUndefined();
  });
});
