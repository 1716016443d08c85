// Captions, text tracks, audio languages, audio description and encryption in files other teams' software made
// (testkit/others-tracks.ts says which and how), through the real API, compared with readers nobody here wrote:
// - mux.js's own caption test files: a captions track of format cea-608 exactly where ffprobe finds A/53 caption
//   side data in the decoded frames and mux.js parses caption cues, and nowhere else (a malformed SEI included);
// - mux.js's WebVTT-in-MP4 and the packager's WebVTT subtitles: a text track with format and language;
// - shaka-packager's CENC and CBCS files: the scheme mp4box.js reads in schm, the key systems of the pssh boxes it
//   reads, never `native` (ffmpeg decrypting them with the key gives the clear clip's frames: they are real);
// - the packager's DASH and HLS manifests: languages, the audio-description rendition, protection per manifest.
import { describe, expect, it } from "vitest";
import { inspect, media } from "../../testkit/worker/helpers.ts";
import { fixtureFacts } from "../../testkit/worker/fixture-facts.ts";

const readings = await fixtureFacts("othersTracks");
const at = (path: string) => `others-tracks/${path}`;
const ts = (path: string) => media(at(path), "type=video%2Fmp2t");
const hls = (path: string) => media(at(path), `type=${encodeURIComponent("application/vnd.apple.mpegurl")}`);
const dash = (path: string) => media(at(path), `type=${encodeURIComponent("application/dash+xml")}`);

/** ISO 639-2 codes ffprobe and mp4box.js give, as the BCP 47 tags the API gives ("und" is no language). */
const bcp47: Record<string, string | undefined> = { eng: "en", fra: "fr", fre: "fr", spa: "es", und: undefined };
/** pssh system IDs (as mp4box.js prints them) and the EME key system each names. */
const keySystemOf: Record<string, string> = {
  edef8ba979d64acea3c827dcd51d21ed: "com.widevine.alpha",
  "9a04f07998404286ab92e65be0885f95": "com.microsoft.playready",
};

interface Text { kind: string; format: string; language?: string }
interface Audio { codec: string; language?: string; role?: string }
const texts = (body: any): Text[] => body?.data?.metadata?.tracks?.text ?? [];
const verdicts = (body: any) => Object.entries(body?.data?.playback?.compatibility ?? {}) as [string, { verdict: string; keySystem?: string; reasons: string[] }][];

describe("mux.js caption files (and its captions re-encoded by ffmpeg): CEA-608 flagged exactly where ffprobe and mux.js find captions", { timeout: 120_000 }, () => {
  const files = Object.keys(readings.captions);
  let fullCompared = 0;
  it("the references find captions in six files (one with CEA-708) and none in five", () => {
    const carrying = files.filter((f) => readings.captions[f]!.ffprobeCaptionFrames > 0).sort();
    expect(carrying).toEqual(["captured/mixed-608-708.ts", "joined/dash-608-captions.mp4", "muxjs/multi-channel-608-captions.ts", "muxjs/sintel-captions.ts",
      "reencoded/a53cc.mkv", "reencoded/a53cc.mp4"]);
    expect(readings.captions["captured/mixed-608-708.ts"]!.muxChannels).toEqual(["CC1", "cc708_1"]);
    expect(files.length - carrying.length).toBe(5);
    expect(readings.captions["muxjs/multi-channel-608-captions.ts"]!.muxChannels).toEqual(["CC1", "CC3"]);
  });
  it.each(files)("%s", async (file) => {
    const reading = readings.captions[file]!;
    // The two references agree with each other before the service is compared with them (mux.js reads TS and fMP4).
    const carries = reading.ffprobeCaptionFrames > 0;
    if (reading.muxCues !== undefined) expect(carries, JSON.stringify(reading)).toBe(reading.muxCues > 0);
    const url = file.endsWith(".ts") ? ts(file) : media(at(file));
    for (const profile of ["fast", "full"] as const) {
      const { status, body } = await inspect(url, `profile=${profile}`);
      expect([200, 202], JSON.stringify(body).slice(0, 400)).toContain(status);
      if (profile === "full" && !body.processing?.completedStages?.some((s: string) => s.startsWith("metadata:"))) continue;
      const cea = texts(body).filter((t) => t.format.startsWith("cea-"));
      const why = `${profile} ${file}: ${JSON.stringify({ tracks: body.data.metadata?.tracks, accessibility: body.data.accessibility })}`;
      if (profile === "full") fullCompared++;
      if (carries) {
        // mux.js names 608 channels CC1-CC4 and 708 services cc708_N; the re-encoded files carry Sintel's CC1.
        const formats = reading.muxChannels ? [...new Set(reading.muxChannels.map((c) => (c.startsWith("cc708") ? "cea-708" : "cea-608")))] : ["cea-608"];
        expect(cea.map((t) => t.format).sort(), why).toEqual(formats.sort());
        for (const t of cea) expect(t, why).toEqual({ kind: "captions", format: t.format });
        expect(body.data.accessibility?.captions, why).toBe(true);
      } else {
        expect(cea, why).toEqual([]);
        expect(body.data.accessibility?.captions ?? false, why).toBe(false);
      }
    }
  });
  // full may answer 202 on a loaded machine (its wait bound); it must have been compared somewhere.
  it("full (the runner's ffprobe path) was compared on most files", () => expect(fullCompared).toBeGreaterThanOrEqual(files.length - 2));
});

describe("WebVTT in MP4 made by others: a text track with format and language", { timeout: 60_000 }, () => {
  it("mux.js's test-webvtt (ffprobe lists it as a data stream; the sample entry is wvtt)", async () => {
    expect(readings.streams["joined/test-webvtt.mp4"]).toEqual([{ type: "data", codec: "", language: "und", default: true, dispositions: [] }]);
    const { status, body } = await inspect(media(at("joined/test-webvtt.mp4")), "profile=fast");
    expect(status, JSON.stringify(body).slice(0, 400)).toBe(200);
    expect(texts(body), JSON.stringify(body.data.metadata)).toEqual([{ kind: "subtitles", format: "wvtt", default: true }]);
  });

  it("the packager's Spanish WebVTT subtitles: language from the mdhd mp4box.js reads", async () => {
    const box = readings.boxes["langs/text-es.mp4"]!;
    expect(box.tracks).toEqual([{ entry: "wvtt", handler: "text", language: "spa" }]);
    const [probed] = readings.streams["packaged/langs/text-es.mp4"]!;
    const { body } = await inspect(media(at("packaged/langs/text-es.mp4")), "profile=fast");
    expect(texts(body)).toEqual([{ kind: "subtitles", format: "wvtt", language: bcp47[box.tracks[0]!.language], default: probed!.default }]);
  });

  it.each(["audio-en.mp4", "audio-fr.mp4", "audio-desc.mp4"])("the packager's %s: the language ffprobe and mp4box.js read", async (file) => {
    const language = bcp47[readings.boxes[`langs/${file}`]!.tracks[0]!.language];
    expect(readings.streams[`packaged/langs/${file}`]!.map((s) => bcp47[s.language ?? "und"])).toEqual([language]);
    const { body } = await inspect(media(at(`packaged/langs/${file}`)), "profile=fast");
    expect((body.data.metadata.tracks.audio as Audio[]).map((a) => a.language)).toEqual([language]);
  });
});

describe("shaka-packager's CENC and CBCS files", { timeout: 120_000 }, () => {
  const files = Object.keys(readings.decrypts);
  it("covers the four Common Encryption schemes", () => expect(new Set(files.map((f) => f.split("/")[0]))).toEqual(new Set(["cenc", "cbcs", "cens", "cbc1"])));
  it.each(files)("%s: real encryption (ffmpeg decrypts it with the key to the clear clip's frames)", (file) => {
    expect(readings.decrypts[file]).toEqual({ withKeyEqualsClear: true, withoutKeyDiffers: true });
  });

  it.each(files)("%s: scheme and key systems as mp4box.js reads the boxes; eme, never native, in fast and full", async (file) => {
    const box = readings.boxes[file]!;
    const scheme = box.tracks[0]!.scheme;
    expect(scheme).toBe(file.split("/")[0]);
    // The pattern schemes encrypt video 1 block in 10 (tenc's default pattern, as mp4box.js reads it).
    if (/^(cbcs|cens)\/video/.test(file)) expect(box.tracks[0]!.pattern).toEqual([1, 9]);
    const keySystems = box.psshSystemIds.map((id) => keySystemOf[id]).sort();
    expect(keySystems).toEqual(["com.microsoft.playready", "com.widevine.alpha"]);
    for (const profile of ["fast", "full"] as const) {
      const { status, body } = await inspect(media(at(`packaged/${file}`)), `profile=${profile}${profile === "full" ? "&debug=true" : ""}`);
      expect([200, 202], JSON.stringify(body).slice(0, 400)).toContain(status);
      // The runner decodes no encrypted sample for a picture: the thumbnail stage ends with the reason encrypted.
      const thumbnail = body.data.diagnostics?.stages?.["preview:thumbnail"];
      if (profile === "full" && file.endsWith("video.mp4") && body.processing?.status === "complete") {
        expect(thumbnail, JSON.stringify(body.data.diagnostics?.stages)).toMatchObject({ state: "failed", error: "encrypted" });
      }
      const protection = body.data.metadata?.protection;
      expect(protection, `${profile}: ${JSON.stringify(body.data.metadata)}`).toMatchObject({ encrypted: true, scheme });
      expect([...protection.keySystems].sort()).toEqual(keySystems);
      for (const [browser, v] of verdicts(body)) expect(v.verdict, `${profile} ${browser}`).not.toBe("native");
      if (scheme === "cenc" || scheme === "cbcs") {
        expect(body.data.playback.compatibility.chrome).toMatchObject({ verdict: "eme", keySystem: "com.widevine.alpha" });
        expect(body.data.playback.compatibility.edge.verdict).toBe("eme");
      } else {
        // EME's encryption schemes are cenc and cbcs: no browser's CDM decrypts cens or cbc1.
        for (const [browser, v] of verdicts(body)) expect(v.verdict, `${profile} ${browser} ${JSON.stringify(v)}`).toBe("no");
      }
    }
  });

  it.each(["cenc", "cbcs", "cens", "cbc1"])("%s DASH manifest: the scheme and key systems of its ContentProtection", async (set) => {
    const { status, body } = await inspect(dash(`packaged/${set}/manifest.mpd`), "profile=fast");
    expect(status, JSON.stringify(body).slice(0, 400)).toBe(200);
    expect(body.data.metadata.protection).toMatchObject({ encrypted: true, scheme: set });
    expect([...body.data.metadata.protection.keySystems].sort()).toEqual(["com.microsoft.playready", "com.widevine.alpha"]);
    for (const [browser, v] of verdicts(body)) {
      if (set === "cenc" || set === "cbcs") expect(v.verdict, browser).not.toBe("native");
      else expect(v.verdict, browser).toBe("no");
    }
  });

  it.each(["cenc", "cbcs"])("%s HLS master: the KEYFORMATs of its media playlists' keys, never native", async (set) => {
    const { status, body } = await inspect(hls(`packaged/${set}/master.m3u8`), "profile=fast");
    expect(status, JSON.stringify(body).slice(0, 400)).toBe(200);
    const protection = body.data.metadata.protection;
    expect(protection, JSON.stringify(body.data.metadata)).toMatchObject({ encrypted: true });
    // The packager signals FairPlay only in HLS (skd:// key lines), and only for cbcs.
    const want = ["com.microsoft.playready", "com.widevine.alpha", ...(set === "cbcs" ? ["com.apple.fps"] : [])].sort();
    expect([...protection.keySystems].sort()).toEqual(want);
    // METHOD=SAMPLE-AES with key formats is cbcs; SAMPLE-AES-CTR is cenc, which FairPlay cannot decrypt.
    expect(protection.scheme).toBe(set);
    for (const [browser, v] of verdicts(body)) expect(v.verdict, browser).not.toBe("native");
    const safari = body.data.playback.compatibility.safari;
    if (set === "cbcs") expect(safari).toMatchObject({ verdict: "eme", keySystem: "com.apple.fps" });
    else expect(safari.verdict).toBe("no");
  });
});

describe("HLS masters' renditions as m3u8-parser reads them: audio languages and description, subtitles, closed captions", { timeout: 60_000 }, () => {
  const lang = (l?: string) => (l === undefined || l.length === 2 ? l : bcp47[l]);
  it.each(Object.keys(readings.hls))("%s", async (path) => {
    const renditions = readings.hls[path]!;
    const { status, body } = await inspect(media(path, `type=${encodeURIComponent("application/vnd.apple.mpegurl")}`), "profile=fast");
    expect(status, JSON.stringify(body).slice(0, 400)).toBe(200);
    const tracks = body.data.metadata.tracks;
    const why = JSON.stringify(tracks);
    expect(tracks.audio.map((a: Audio & { default?: boolean }) => [a.language, a.role === "description", a.default]), why).toEqual(renditions
      .filter((r) => r.type === "AUDIO").map((r) => [lang(r.language), (r.characteristics ?? "").includes("public.accessibility.describes-video"), r.default]));
    expect(tracks.text.map((t: Text & { default?: boolean }) => [t.kind, t.language, t.default, t.kind === "captions" ? t.format : undefined]), why).toEqual(renditions
      .filter((r) => r.type !== "AUDIO").map((r) => r.type === "SUBTITLES" ? [r.forced ? "forced" : "subtitles", lang(r.language), r.default, undefined]
        : ["captions", lang(r.language), r.default, /^SERVICE/.test(r.instreamId ?? "") ? "cea-708" : "cea-608"]));
  });
});

describe("the packager's DASH manifests as mpd-parser reads them: languages, description, subtitles, scheme, key systems", { timeout: 60_000 }, () => {
  it.each(Object.keys(readings.dash))("%s", async (path) => {
    const want = readings.dash[path]!;
    const { status, body } = await inspect(media(path, `type=${encodeURIComponent("application/dash+xml")}`), "profile=fast");
    expect(status, JSON.stringify(body).slice(0, 400)).toBe(200);
    const { tracks, protection } = body.data.metadata;
    const why = JSON.stringify(body.data.metadata);
    expect(tracks.audio.map((a: Audio) => ({ ...(a.language ? { language: a.language } : {}), description: a.role === "description" })), why).toEqual(want.audio);
    expect(tracks.text.filter((t: Text) => t.kind === "subtitles").map((t: Text) => (t.language ? { language: t.language } : {})), why).toEqual(want.subtitles);
    if (want.scheme) {
      expect(protection, why).toMatchObject({ encrypted: true, scheme: want.scheme });
      expect([...protection.keySystems].sort()).toEqual(want.keySystems);
    } else {
      expect(protection, why).toBeUndefined();
    }
  });
});

describe("shaka-packager's segmented cbcs output (init segment + media segments)", { timeout: 60_000 }, () => {
  const { init, segmentBoxes, segmentTrafBoxes, joinedDecrypts } = readings.segmented;
  it("is real encryption, as mp4box.js and ffmpeg read it", () => {
    expect(joinedDecrypts).toEqual({ withKeyEqualsClear: true, withoutKeyDiffers: true });
    expect(init.tracks).toMatchObject([{ entry: "encv", scheme: "cbcs", pattern: [1, 9] }]);
    expect(segmentBoxes).toContain("moof");
    expect(segmentTrafBoxes).toContain("senc");
  });

  it("the init segment: scheme and key systems of its moov; eme, never native", async () => {
    const { status, body } = await inspect(media(at("packaged/segmented/video-init.mp4")), "profile=fast");
    expect(status, JSON.stringify(body).slice(0, 400)).toBe(200);
    expect(body.data.metadata.protection).toMatchObject({ encrypted: true, scheme: "cbcs" });
    expect([...body.data.metadata.protection.keySystems].sort()).toEqual(init.psshSystemIds.map((id) => keySystemOf[id]).sort());
    for (const [browser, v] of verdicts(body)) expect(v.verdict, browser).not.toBe("native");
  });

  it("a media segment alone (its moof holds senc and no pssh): encrypted, naming no key system", async () => {
    const { status, body } = await inspect(media(at("packaged/segmented/video-1.m4s"), "type=video%2Fmp4"), "profile=fast");
    expect(status, JSON.stringify(body).slice(0, 400)).toBe(200);
    expect(body.data.metadata?.protection, JSON.stringify(body.data.metadata)).toEqual({ encrypted: true, keySystems: [] });
    for (const [browser, v] of verdicts(body)) expect(v.verdict, browser).not.toBe("native");
  });

  it("its DASH manifest: cbcs with Widevine and PlayReady", async () => {
    const { body } = await inspect(dash("packaged/segmented/manifest.mpd"), "profile=fast");
    expect(body.data.metadata.protection).toMatchObject({ encrypted: true, scheme: "cbcs" });
    expect([...body.data.metadata.protection.keySystems].sort()).toEqual(["com.microsoft.playready", "com.widevine.alpha"]);
  });
});

describe("shaka-packager's clear package with three audio languages, audio description and subtitles", { timeout: 60_000 }, () => {
  const audioWanted = [["en", "main"], ["fr", "main"], ["en", "description"]];
  it("DASH: languages, the Role description, and the WebVTT text track", async () => {
    const { status, body } = await inspect(dash("packaged/langs/manifest.mpd"), "profile=fast");
    expect(status, JSON.stringify(body).slice(0, 400)).toBe(200);
    const tracks = body.data.metadata.tracks;
    expect(tracks.audio.map((a: Audio) => [a.language, a.role ?? "main"]).sort(), JSON.stringify(tracks)).toEqual([...audioWanted].sort());
    expect(tracks.text.map((t: Text) => [t.kind, t.format, t.language])).toEqual([["subtitles", "wvtt", "es"]]);
    expect(body.data.accessibility).toMatchObject({ audioDescription: true, subtitles: true });
    expect(body.data.metadata).not.toHaveProperty("protection");
  });

  it("HLS: languages, CHARACTERISTICS describes-video, and the subtitles rendition", async () => {
    const { status, body } = await inspect(hls("packaged/langs/master.m3u8"), "profile=fast");
    expect(status, JSON.stringify(body).slice(0, 400)).toBe(200);
    const tracks = body.data.metadata.tracks;
    expect(tracks.audio.map((a: Audio) => [a.language, a.role ?? "main"]).sort(), JSON.stringify(tracks)).toEqual([...audioWanted].sort());
    expect(tracks.text.map((t: Text) => [t.kind, t.language])).toEqual([["subtitles", "es"]]);
    expect(body.data.accessibility).toMatchObject({ audioDescription: true, subtitles: true });
  });
});

describe("mkvmerge's languages and track flags: every track ffprobe lists, with language, role and kind", { timeout: 60_000 }, () => {
  const roleOf = (d: string[]) => (d.includes("visual_impaired") ? "description" : d.includes("comment") ? "commentary" : undefined);
  const kindOf = (d: string[]) => (d.includes("hearing_impaired") || d.includes("captions") ? "captions" : d.includes("forced") ? "forced" : "subtitles");
  it.each(["fast", "full"] as const)("flags/mkvmerge.mkv in %s", async (profile) => {
    const probed = readings.streams["flags/mkvmerge.mkv"]!;
    expect(probed.filter((s) => s.type === "audio").length).toBe(4);
    const { status, body } = await inspect(media(at("flags/mkvmerge.mkv")), `profile=${profile}`);
    expect([200, 202], JSON.stringify(body).slice(0, 400)).toContain(status);
    const tracks = body.data.metadata?.tracks;
    if (profile === "full" && !body.processing?.completedStages?.some((s: string) => s.startsWith("metadata:"))) return;
    const why = JSON.stringify(tracks);
    expect(tracks.audio.map((a: Audio) => [a.language, a.role === "main" ? undefined : a.role]), why)
      .toEqual(probed.filter((s) => s.type === "audio").map((s) => [bcp47[s.language ?? "und"], roleOf(s.dispositions)]));
    expect(tracks.text.map((t: Text & { forced?: boolean }) => [t.format, t.language, t.kind, t.forced ?? false]), why)
      .toEqual(probed.filter((s) => s.type === "subtitle").map((s) => ["srt", bcp47[s.language ?? "und"], kindOf(s.dispositions), s.dispositions.includes("forced")]));
    expect(body.data.accessibility).toMatchObject({ captions: true, audioDescription: true, languages: { audio: ["en", "fr"], text: ["es", "en"] } });
  });
});

describe("chapters written by mkvmerge and node-id3 (not ffmpeg): ffprobe's starts within 0.05 s, and its titles", { timeout: 120_000 }, () => {
  const files = Object.keys(readings.chapters);
  let fullCompared = 0;
  it.each(files)("%s", async (file) => {
    const want = readings.chapters[file]!;
    expect(want.map((c) => c.title)).toEqual(["Opening", "Zweiter Teil: Überblick", "Credits"]);
    for (const profile of ["fast", "full"] as const) {
      const { status, body } = await inspect(media(at(file)), `profile=${profile}`);
      expect([200, 202], JSON.stringify(body).slice(0, 400)).toContain(status);
      if (profile === "full" && !body.processing?.completedStages?.some((s: string) => s.startsWith("metadata:"))) continue;
      if (profile === "full") fullCompared++;
      const got = (body.data.metadata?.chapters ?? []) as { start: number; title?: string }[];
      const why = `${profile}: ${JSON.stringify(got)}`;
      expect(got.map((c) => c.title), why).toEqual(want.map((c) => c.title));
      got.forEach((c, i) => expect(Math.abs(c.start - want[i]!.start), why).toBeLessThanOrEqual(0.05));
    }
  });
  it("full was compared on most files", () => expect(fullCompared).toBeGreaterThanOrEqual(files.length - 1));
});

describe("mux.js's packed-audio segment (ID3 then ADTS AAC, as HLS carries audio)", () => {
  it("is audio that every browser plays (each engine has an ADTS demuxer)", async () => {
    const { status, body } = await inspect(media(at("muxjs/test-aac-segment.aac"), "type=audio%2Faac"), "profile=fast");
    expect(status, JSON.stringify(body).slice(0, 400)).toBe(200);
    expect(body.data.semantic.semanticType).toBe("audio");
    for (const [browser, v] of verdicts(body)) expect(v.verdict, `${browser} ${JSON.stringify(v.reasons)}`).toBe("native");
  });
});
