/**
 * The runner's HLS model (issue 20, item 1): what ffmpeg might read differently from the model (CR or NUL inside
 * a line, repeated, escaped or lowercase attributes, unterminated quotes) refuses the playlist, in every tag,
 * dropped ones included; what is written back holds only the model's values and proxy URLs.
 */
import { describe, expect, it } from "vitest";
import { RunnerError } from "../../media-runner/src/errors.ts";
import { parseAttributeList } from "../../media-runner/src/proxy/hls-attributes.ts";
import { parseHlsPlaylist } from "../../media-runner/src/proxy/hls-model.ts";
import { serialiseHlsPlaylist } from "../../media-runner/src/proxy/hls-serialise.ts";
import { rewriteHlsPlaylist } from "../../media-runner/src/proxy/manifest-rewrite.ts";

const base = new URL("https://cdn.example/v/index.m3u8");
const trap = "http://127.0.0.1:9/trap";
const registered: string[] = [];
const register = (url: URL, role: string) => {
  registered.push(url.href);
  return `http://127.0.0.1:1/${role}/${registered.length}`;
};
const rewrite = (text: string, keepSegments?: number) =>
  rewriteHlsPlaylist(text, { base, register, ...(keepSegments !== undefined ? { keepSegments } : {}) });

function refusal(text: string): RunnerError {
  try {
    rewrite(text);
  } catch (error) {
    expect(error).toBeInstanceOf(RunnerError);
    return error as RunnerError;
  }
  throw new Error(`accepted: ${JSON.stringify(text.slice(0, 80))}`);
}

const media = (body: string) => `#EXTM3U\n#EXT-X-TARGETDURATION:2\n${body}\n#EXTINF:2,\nseg0.ts\n#EXT-X-ENDLIST\n`;

describe("line endings", () => {
  it("LF and CRLF playlists give the same model", () => {
    const lf = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.5,title\nseg0.ts\n#EXT-X-ENDLIST\n";
    expect(parseHlsPlaylist(lf.replace(/\n/g, "\r\n"), base)).toEqual(parseHlsPlaylist(lf, base));
    expect(rewrite(lf)).toMatch(/^#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2\.5,\nhttp:\/\/127\.0\.0\.1:1\/segment\/\d+\n#EXT-X-ENDLIST\n$/);
  });

  it("a CR inside a line, or a NUL, refuses the playlist with the reason (the attack: a URI ffmpeg sees and LF-splitting hides)", () => {
    for (const [text, reason] of [
      [`#EXTM3U\n#X\r#EXTINF:2,\r${trap}/s.ts\n#EXTINF:2,\nseg0.ts\n`, /CR that does not end the line/],
      [`#EXTM3U\n#EXT-X-TARGETDURATION:2\r\r\n#EXTINF:2,\nseg0.ts\n`, /CR that does not end the line/],
      [`#EXTM3U\n#EXTINF:2,\nseg0.ts\0${trap}/s.ts\n`, /NUL/],
      [`#EXTM3U\n#X\0#EXTINF:2,\n${trap}\n`, /NUL/],
      [`#EXTM3U\n#EXTINF:2,\nseg0.ts\u000b${trap}\n`, /control character/],
    ] as const) {
      const error = refusal(text);
      expect(error.code).toBe("CORRUPT_MEDIA");
      expect(error.message).toMatch(reason);
    }
  });

  it("2,000 CR-hidden variants in a 150 KB playlist are refused at the first, in linear time, registering nothing", () => {
    const hidden = Array.from({ length: 2_000 }, (_, i) => `#X\r#EXT-X-STREAM-INF:BANDWIDTH=1\r${trap}/${i}.m3u8`).join("\n");
    const text = `#EXTM3U\n${hidden}\n`;
    expect(text.length).toBeGreaterThan(100_000);
    registered.length = 0;
    const started = performance.now();
    expect(refusal(text).message).toMatch(/line 2 holds a CR/);
    expect(performance.now() - started).toBeLessThan(50);
    expect(registered).toEqual([]);
  });
});

describe("attribute lists", () => {
  it("reads quoted and bare values", () => {
    const list = parseAttributeList('METHOD=AES-128,URI="k.bin?a=1,b=2",IV=0x01');
    expect([...list]).toEqual([
      ["METHOD", { value: "AES-128", quoted: false }], ["URI", { value: "k.bin?a=1,b=2", quoted: true }], ["IV", { value: "0x01", quoted: false }],
    ]);
  });

  for (const [name, list, reason] of [
    ["a duplicate name", `URI="init.mp4",URI="${trap}"`, /appears twice/],
    ["an escaped quote", `URI="a\\",URI=${trap}"`, /backslash|appears twice/],
    ["a backslash", `URI="a\\b"`, /backslash/],
    ["a lowercase name", `uri="${trap}"`, /name/],
    ["a mixed-case name", `URI="init.mp4",Uri="${trap}"`, /name/],
    ["a space after the comma", `URI="init.mp4", URI="${trap}"`, /name/],
    ["an unterminated quote", `URI="${trap}`, /closing quote/],
    ["text after a quote", `URI="init.mp4"x,BYTERANGE="1"`, /text follows/],
    ["a quote in a bare value", `METHOD=A"ES`, /space or a quote/],
    ["a trailing comma", `URI="init.mp4",`, /ends with a comma/],
  ] as const) {
    it(`${name} refuses the list`, () => {
      expect(() => parseAttributeList(list)).toThrow(reason);
    });
  }

  it("more attributes than the bound refuse the list", () => {
    expect(() => parseAttributeList(Array.from({ length: 65 }, (_, i) => `A${i}=1`).join(","))).toThrow(/more than 64/);
  });
});

describe("every tag holding a URI, written back or dropped, refuses a hostile attribute list", () => {
  const tags = [
    "EXT-X-MAP", "EXT-X-KEY:METHOD=AES-128,", "EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",", "EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,",
    "EXT-X-SESSION-KEY:METHOD=AES-128,", "EXT-X-PRELOAD-HINT:TYPE=PART,", "EXT-X-PART:DURATION=1,", "EXT-X-RENDITION-REPORT:",
  ];
  for (const prefix of tags) {
    const open = prefix.includes(":") ? `#${prefix}` : `#${prefix}:`;
    it(`${prefix.split(":")[0]}: duplicate URI, escaped quote, lowercase name`, () => {
      for (const list of [`URI="ok.bin",URI="${trap}"`, `URI="a\\",URI=${trap}"`, `uri="${trap}"`]) {
        expect(refusal(media(`${open}${list}`)).code).toBe("CORRUPT_MEDIA");
      }
    });
  }

  it("an unknown tag holding an attribute list is parsed too", () => {
    expect(refusal(media(`#EXT-X-VENDOR-THING:URI="a",URI="${trap}"`)).code).toBe("CORRUPT_MEDIA");
  });
});

describe("what is written back", () => {
  it("holds the model's values only: a key's and a map's URI become proxy URLs, other attributes are dropped", () => {
    registered.length = 0;
    const out = rewrite(media(`#EXT-X-KEY:METHOD=AES-128,URI="key.bin",IV=0x0000000000000000000000000000000A,KEYFORMAT="identity",X-EXTRA="${trap}"\n#EXT-X-MAP:URI="init.mp4",BYTERANGE="100@0"`));
    expect(out).toContain('#EXT-X-KEY:METHOD=AES-128,URI="http://127.0.0.1:1/key/1",IV=0x0000000000000000000000000000000A\n');
    expect(out).toContain('#EXT-X-MAP:URI="http://127.0.0.1:1/init/2",BYTERANGE="100@0"\n');
    expect(out).not.toContain("127.0.0.1:9");
    expect(registered).toEqual(["https://cdn.example/v/key.bin", "https://cdn.example/v/init.mp4", "https://cdn.example/v/seg0.ts"]);
  });

  it("drops tags ffmpeg does not read for a frame, and their URIs are never registered", () => {
    registered.length = 0;
    const out = rewrite(media([
      `#EXT-X-SESSION-KEY:METHOD=AES-128,URI="${trap}/sk"`, `#EXT-X-PRELOAD-HINT:TYPE=PART,URI="${trap}/ph"`,
      `#EXT-X-PART:DURATION=1,URI="${trap}/p"`, `#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI="${trap}/i"`,
      `#EXT-X-RENDITION-REPORT:URI="${trap}/r",LAST-MSN=1`, "#EXT-X-UNKNOWN", "# a comment",
      `#EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://drm",KEYFORMAT="com.apple.streamingkeydelivery"`,
    ].join("\n")));
    expect(out).toBe("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nhttp://127.0.0.1:1/segment/1\n#EXT-X-ENDLIST\n");
    expect(registered).toEqual(["https://cdn.example/v/seg0.ts"]);
  });

  it("a master playlist: variants and renditions keep only what ffmpeg reads", () => {
    registered.length = 0;
    const out = rewrite([
      "#EXTM3U", "#EXT-X-INDEPENDENT-SEGMENTS",
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="a/index.m3u8"',
      '#EXT-X-STREAM-INF:BANDWIDTH=200000,RESOLUTION=240x136,CODECS="avc1.42c01e,mp4a.40.2",AUDIO="aud"', "v1/index.m3u8", "",
    ].join("\n"));
    expect(out).toBe([
      "#EXTM3U", "#EXT-X-INDEPENDENT-SEGMENTS",
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="http://127.0.0.1:1/playlist/1"',
      '#EXT-X-STREAM-INF:BANDWIDTH=200000,AUDIO="aud"', "http://127.0.0.1:1/playlist/2", "",
    ].join("\n"));
  });

  it("keeps the first N segments, drops the tags of the next one, and ends the playlist", () => {
    const text = ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:7", "#EXTINF:2,", "a.ts",
      "#EXT-X-DISCONTINUITY", "#EXT-X-KEY:METHOD=NONE", "#EXTINF:2,", "b.ts", "#EXTINF:2,", "c.ts", ""].join("\n");
    const out = rewrite(text, 1);
    expect(out.split("\n").filter((l) => l.startsWith("#EXTINF"))).toHaveLength(1);
    expect(out).not.toContain("DISCONTINUITY");
    expect(out.trimEnd().endsWith("#EXT-X-ENDLIST")).toBe(true);
    expect(serialiseHlsPlaylist(parseHlsPlaylist(text, base), { register })).not.toContain("ENDLIST");
  });
});

describe("segment tags between EXTINF and its URI", () => {
  it("are kept and written before the segment they describe (ffmpeg applies them at the URI)", () => {
    const text = ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXTINF:2,", "#EXT-X-DISCONTINUITY", "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00Z",
      '#EXT-X-MAP:URI="init.mp4"', "#EXT-X-KEY:METHOD=NONE", "a.m4s", "#EXT-X-ENDLIST", ""].join("\n");
    const lines = rewrite(text).split("\n");
    const segment = lines.findIndex((l) => l.includes("/segment/"));
    for (const tag of ["#EXT-X-DISCONTINUITY", "#EXT-X-PROGRAM-DATE-TIME", "#EXT-X-MAP", "#EXT-X-KEY"]) {
      const at = lines.findIndex((l) => l.startsWith(tag));
      expect(at, tag).toBeGreaterThan(-1);
      expect(at, tag).toBeLessThan(segment);
    }
    expect(lines[segment - 1]).toMatch(/^#EXTINF:2/);
  });
});

describe("lines the model cannot represent", () => {
  for (const [name, text, code] of [
    ["no #EXTM3U", "#EXTINF:2,\nseg0.ts\n", "CORRUPT_MEDIA"],
    ["a URI with nothing before it", "#EXTM3U\nseg0.ts\n", "CORRUPT_MEDIA"],
    ["a non-numeric duration", "#EXTM3U\n#EXTINF:two,\nseg0.ts\n", "CORRUPT_MEDIA"],
    ["a second EXTINF before the URI", "#EXTM3U\n#EXTINF:2,\n#EXTINF:3,\nseg0.ts\n", "CORRUPT_MEDIA"],
    ["a rendition between EXTINF and its URI", "#EXTM3U\n#EXTINF:2,\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\"\nseg0.ts\n", "CORRUPT_MEDIA"],
    ["a STREAM-INF without BANDWIDTH", "#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\nv.m3u8\n", "CORRUPT_MEDIA"],
    ["a dangling EXTINF", "#EXTM3U\n#EXTINF:2,\n", "CORRUPT_MEDIA"],
    ["an unknown key method", "#EXTM3U\n#EXT-X-KEY:METHOD=ROT13,URI=\"k\"\n#EXTINF:2,\na.ts\n", "CORRUPT_MEDIA"],
    ["a quote in a NAME", '#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="x"y"\n', "CORRUPT_MEDIA"],
    ["a file: segment", "#EXTM3U\n#EXTINF:2,\nfile:///etc/passwd\n", "SSRF_BLOCKED"],
    ["a data: key", '#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="data:,AAAA"\n#EXTINF:2,\na.ts\n', "SSRF_BLOCKED"],
    ["a line longer than the bound", `#EXTM3U\n#EXTINF:2,\nhttp://a.example/${"x".repeat(17_000)}\n`, "CORRUPT_MEDIA"],
  ] as const) {
    it(`${name}: ${code}`, () => {
      expect(refusal(text).code).toBe(code);
    });
  }
});
