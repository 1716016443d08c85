/**
 * Tracks, encryption and live facts of HLS playlists and DASH MPDs: CHARACTERISTICS (described video, transcribed
 * dialogue), CLOSED-CAPTIONS, FORCED, EXT-X-KEY KEYFORMAT, server control hold-backs; DASH Role/Accessibility,
 * CEA-608 descriptors, ContentProtection, timeShiftBufferDepth and Latency. The HLS master's renditions are also read
 * by m3u8-parser (video.js's parser), and both must name the same languages and flags.
 */
import { describe, expect, it } from "vitest";
import { inspectManifest, type FetchedManifest } from "../../worker/manifest/index.ts";
import { ManifestError } from "../../worker/manifest/manifest-error.ts";
import { compatibility } from "../../shared/media/browser-support.ts";
import { Parser } from "m3u8-parser";

const origin = "https://media.example/";
const master = `#EXTM3U
#EXT-X-INDEPENDENT-SEGMENTS
#EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://key1",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="a-en.m3u8"
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English (described)",LANGUAGE="en",CHARACTERISTICS="public.accessibility.describes-video",CHANNELS="2",URI="a-ad.m3u8"
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Deutsch",LANGUAGE="deu",CHANNELS="6",URI="a-de.m3u8"
#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English CC",LANGUAGE="en",CHARACTERISTICS="public.accessibility.transcribes-spoken-dialog,public.accessibility.describes-music-and-sound",URI="s-en.m3u8"
#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Français forcé",LANGUAGE="fr",FORCED=YES,URI="s-fr.m3u8"
#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="English 608",LANGUAGE="en",INSTREAM-ID="CC1"
#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2",AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
v360.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
v720.m3u8
`;
const liveMedia = `#EXTM3U
#EXT-X-VERSION:9
#EXT-X-TARGETDURATION:4
#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.5,HOLD-BACK=12
#EXT-X-PART-INF:PART-TARGET=0.5
#EXT-X-MEDIA-SEQUENCE:100
#EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://key1",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
#EXTINF:4.0,
s100.mp4
#EXTINF:4.0,
s101.mp4
#EXTINF:4.0,
s102.mp4
`;

function fetcher(files: Record<string, string>) {
  return async (url: string): Promise<FetchedManifest> => {
    const text = files[new URL(url).pathname.slice(1)];
    if (text === undefined) throw new Error(`no ${url}`);
    return { text, finalUrl: url };
  };
}

describe("HLS tracks, protection and live", () => {
  it("renditions with languages, described audio, captions, forced subtitles, CEA-608; FairPlay; LL-HLS latency and window", async () => {
    const facts = await inspectManifest("hls", { text: master, finalUrl: origin + "master.m3u8" }, fetcher({ "v360.m3u8": liveMedia }));
    const t = facts.trackFacts!;
    expect(t.tracks!.audio).toEqual([
      { codec: "aac", language: "en", channels: 2, default: true, name: "English" },
      { codec: "aac", language: "en", role: "description", channels: 2, default: false, name: "English (described)" },
      { codec: "aac", language: "de", channels: 6, default: false, name: "Deutsch" },
    ]);
    expect(t.tracks!.text).toEqual([
      { kind: "captions", format: "webvtt", language: "en", default: false, name: "English CC" },
      { kind: "forced", format: "webvtt", language: "fr", default: false, name: "Français forcé", forced: true },
      { kind: "captions", format: "cea-608", language: "en", default: false, name: "English 608" },
    ]);
    expect(t.tracks!.video).toEqual([{ codec: "h264", width: 1280, height: 720 }]);
    const parser = new Parser();
    parser.push(master);
    parser.end();
    const groups = parser.manifest.mediaGroups!;
    const theirs = Object.values(groups.AUDIO!["aud"]!);
    expect(t.tracks!.audio.map((a) => a.role === "description")).toEqual(theirs.map((r) => (r.characteristics ?? "").includes("describes-video")));
    expect(t.tracks!.audio.map((a) => a.default)).toEqual(theirs.map((r) => r.default));
    const subs = Object.values(groups.SUBTITLES!["subs"]!);
    expect(t.tracks!.text.slice(0, 2).map((x) => x.forced === true)).toEqual(subs.map((r) => r.forced === true));
    expect(Object.values(groups["CLOSED-CAPTIONS"]!["cc"]!).map((r) => r.language)).toEqual(["en"]);
    expect(t.protection).toEqual({ encrypted: true, scheme: "cbcs", keySystems: ["com.apple.fps"] });
    expect(t.live).toEqual({ lowLatency: true, targetLatency: 1.5, dvrWindow: 12, targetDuration: 4 });
    // FairPlay: Safari and iOS through EME; the others offer no FairPlay, so no.
    const verdicts = compatibility({ mime: "application/vnd.apple.mpegurl", codecs: ["avc1.64001e", "mp4a.40.2"], streaming: "hls", protection: t.protection });
    expect(verdicts.safari).toMatchObject({ verdict: "eme", keySystem: "com.apple.fps" });
    expect(verdicts.ios.verdict).toBe("eme");
    expect(verdicts.chrome.verdict).toBe("no");
    for (const v of Object.values(verdicts)) expect(v.verdict).not.toBe("native");
  });

  it("AES-128 with the plain key format is no DRM: the verdict stays native/mse with the reason", async () => {
    const media = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\"\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n";
    const facts = await inspectManifest("hls", { text: media, finalUrl: origin + "m.m3u8" }, fetcher({}));
    expect(facts.trackFacts!.protection).toEqual({ encrypted: true, scheme: "AES-128", keySystems: [] });
    expect(facts.trackFacts!.live).toBeUndefined();
    const verdicts = compatibility({ mime: "application/vnd.apple.mpegurl", codecs: ["avc1.64001e"], streaming: "hls", protection: facts.trackFacts!.protection });
    expect(verdicts.safari.verdict).toBe("native");
    expect(verdicts.firefox.verdict).toBe("mse");
  });

  it("hostile: a master with 10,000 renditions is refused with a clear reason, quickly", async () => {
    const lines = ["#EXTM3U"];
    for (let i = 0; i < 10_000; i++) lines.push(`#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",NAME="n${i}",LANGUAGE="en",URI="s${i}.m3u8"`);
    lines.push('#EXT-X-STREAM-INF:BANDWIDTH=1,SUBTITLES="s"', "v.m3u8");
    const started = performance.now();
    const error = await inspectManifest("hls", { text: lines.join("\n"), finalUrl: origin + "m.m3u8" }, fetcher({})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManifestError);
    expect((error as ManifestError).reason).toMatch(/more than 64 renditions/);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

const mpd = (type: "static" | "dynamic", extra = "") => `<?xml version="1.0"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013" type="${type}" ${type === "dynamic" ? 'availabilityStartTime="2026-01-01T00:00:00Z" timeShiftBufferDepth="PT30M" minimumUpdatePeriod="PT2S"' : 'mediaPresentationDuration="PT10S"'} minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-live:2011">
  ${extra}
  <Period id="p0" start="PT0S">
    <AdaptationSet contentType="video" mimeType="video/mp4" segmentAlignment="true">
      <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" cenc:default_KID="a7e61c37-3e21-9033-c210-91fa607bf3b8"/>
      <ContentProtection schemeIdUri="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"/>
      <ContentProtection schemeIdUri="urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95"/>
      <Accessibility schemeIdUri="urn:scte:dash:cc:cea-608:2015" value="CC1=eng;CC3=spa"/>
      <SegmentTemplate timescale="1000" duration="2000" initialization="v_$RepresentationID$_init.mp4" media="v_$RepresentationID$_$Number$.m4s" startNumber="1"/>
      <Representation id="v1" codecs="avc1.64001f" width="1280" height="720" bandwidth="3000000"/>
      <Representation id="v0" codecs="avc1.64001e" width="640" height="360" bandwidth="800000"/>
    </AdaptationSet>
    <AdaptationSet contentType="audio" mimeType="audio/mp4" lang="en">
      <Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>
      <AudioChannelConfiguration schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="2"/>
      <SegmentTemplate timescale="1000" duration="2000" initialization="a_init.mp4" media="a_$Number$.m4s"/>
      <Representation id="a0" codecs="mp4a.40.2" bandwidth="128000"/>
    </AdaptationSet>
    <AdaptationSet contentType="audio" mimeType="audio/mp4" lang="en">
      <Role schemeIdUri="urn:mpeg:dash:role:2011" value="alternate"/>
      <Accessibility schemeIdUri="urn:tva:metadata:cs:AudioPurposeCS:2007" value="1"/>
      <SegmentTemplate timescale="1000" duration="2000" initialization="ad_init.mp4" media="ad_$Number$.m4s"/>
      <Representation id="ad" codecs="mp4a.40.2" bandwidth="128000"/>
    </AdaptationSet>
    <AdaptationSet contentType="text" mimeType="application/mp4" lang="fr">
      <Role schemeIdUri="urn:mpeg:dash:role:2011" value="subtitle"/>
      <SegmentTemplate timescale="1000" duration="2000" media="t_$Number$.m4s"/>
      <Representation id="t0" codecs="stpp.ttml.im1t" bandwidth="1000"/>
    </AdaptationSet>
    <AdaptationSet contentType="text" mimeType="text/vtt" lang="en">
      <Role schemeIdUri="urn:mpeg:dash:role:2011" value="caption"/>
      <Representation id="t1" bandwidth="1000"><BaseURL>en.vtt</BaseURL></Representation>
    </AdaptationSet>
  </Period>
</MPD>`;

describe("DASH tracks, protection and live", () => {
  it("Role and Accessibility, CEA-608 descriptor, ContentProtection with Widevine and PlayReady", async () => {
    const facts = await inspectManifest("dash", { text: mpd("static"), finalUrl: origin + "a.mpd" }, fetcher({}));
    const t = facts.trackFacts!;
    expect(t.tracks!.audio).toEqual([
      { codec: "aac", language: "en", role: "main", channels: 2, default: true },
      { codec: "aac", language: "en", role: "description" },
    ]);
    expect(t.tracks!.text).toEqual([
      { kind: "captions", format: "cea-608", language: "en" },
      { kind: "captions", format: "cea-608", language: "es" },
      { kind: "subtitles", format: "stpp", language: "fr" },
      { kind: "captions", format: "webvtt", language: "en" },
    ]);
    expect(t.tracks!.video).toEqual([{ codec: "h264", width: 1280, height: 720 }]);
    expect(t.protection).toEqual({ encrypted: true, scheme: "cenc", keySystems: ["com.widevine.alpha", "com.microsoft.playready"] });
    expect(t.live).toBeUndefined();
    const verdicts = compatibility({ mime: "application/dash+xml", codecs: ["avc1.64001e"], streaming: "dash", protection: t.protection });
    expect(verdicts.chrome).toMatchObject({ verdict: "eme", keySystem: "com.widevine.alpha" });
    expect(verdicts.edge).toMatchObject({ verdict: "eme", keySystem: "com.widevine.alpha" });
    expect(verdicts.safari.verdict).toBe("no");
  });

  it("a dynamic MPD: low latency, target latency and the time-shift window", async () => {
    const text = mpd("dynamic", '<ServiceDescription id="0"><Latency target="3500" max="7000" min="2000"/></ServiceDescription>');
    const facts = await inspectManifest("dash", { text, finalUrl: origin + "l.mpd" }, fetcher({}));
    expect(facts.streaming.live).toBe(true);
    expect(facts.trackFacts!.live).toEqual({ lowLatency: true, targetLatency: 3.5, dvrWindow: 1800 });
  });
});
