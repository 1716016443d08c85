// Tracks, chapters, encryption and accessibility through the API: `fast` answers them from the MP4 moov and the
// Matroska Tracks/Chapters it read, `full` gives the same; an encrypted file is never `native`, and its previews end
// with the reason `encrypted` instead of a grey picture.
import { describe, expect, it } from "vitest";
import { inspect, media } from "../../../testkit/worker/helpers.ts";

describe("tracks through the API", { timeout: 60_000 }, () => {
  it("MP4 with tx3g subtitles, two audio languages and a described-audio track: fast equals full", async () => {
    const url = media("subs.mp4");
    const fast = await inspect(url, "profile=fast");
    expect(fast.status).toBe(200);
    const m = fast.body.data.metadata;
    expect(m.tracks.audio.map((a: { language: string; role?: string }) => [a.language, a.role])).toEqual([["en", undefined], ["fr", "description"]]);
    expect(m.tracks.text.filter((t: { kind: string }) => t.kind !== "chapters")).toEqual([
      { kind: "subtitles", format: "tx3g", language: "es", default: true },
      // forced + hearing_impaired: ffmpeg writes both kind boxes; captions (for the deaf) wins, forced stays a flag.
      { kind: "captions", format: "tx3g", language: "de", default: false, forced: true },
    ]);
    expect(m.chapters).toEqual([{ start: 0, title: "Intro" }, { start: 1.25, title: "Main part" }]);
    expect(fast.body.data.accessibility).toEqual({ captions: true, subtitles: true, audioDescription: true, languages: { audio: ["en", "fr"], text: ["es", "de"] } });
    expect(m).not.toHaveProperty("protection");
    const full = await inspect(url, "profile=full");
    expect(full.body.data.metadata.tracks).toEqual(m.tracks);
    expect(full.body.data.metadata.chapters).toEqual(m.chapters);
    expect(full.body.data.accessibility).toEqual(fast.body.data.accessibility);
  });

  it("fields=metadata.tracks,metadata.chapters keeps only those parts of metadata", async () => {
    const url = media("subs.mp4");
    const whole = await inspect(url, "profile=fast");
    const parts = await inspect(url, "profile=fast&fields=metadata.tracks,metadata.chapters");
    expect(parts.status).toBe(200);
    expect(Object.keys(parts.body.data)).toEqual(["metadata"]);
    expect(parts.body.data.metadata).toEqual({ tracks: whole.body.data.metadata.tracks, chapters: whole.body.data.metadata.chapters });
    const encrypted = await inspect(media("enc-pssh.mp4"), "profile=fast&fields=metadata.protection");
    expect(encrypted.body.data.metadata).toEqual({ protection: { encrypted: true, scheme: "cenc", keySystems: ["com.widevine.alpha", "com.microsoft.playready"] } });
  });

  it("Matroska with SRT, ASS, WebVTT and chapters in fast", async () => {
    const { body } = await inspect(media("subs.mkv"), "profile=fast");
    expect(body.data.metadata.tracks.text.map((t: { format: string; language: string; kind: string }) => [t.format, t.language, t.kind]))
      .toEqual([["srt", "es", "subtitles"], ["ass", "de", "forced"], ["webvtt", "ja", "captions"]]);
    expect(body.data.metadata.chapters.map((c: { title: string }) => c.title)).toEqual(["Intro", "Main part"]);
    expect(body.data.accessibility.captions).toBe(true);
  });

  it("an encrypted MP4 with pssh boxes: protection with key systems, eme verdicts, never native; previews end as encrypted", async () => {
    const url = media("enc-pssh.mp4");
    const fast = await inspect(url, "profile=fast");
    expect(fast.body.data.metadata.protection).toEqual({ encrypted: true, scheme: "cenc", keySystems: ["com.widevine.alpha", "com.microsoft.playready"] });
    const compatibility = fast.body.data.playback.compatibility;
    expect(compatibility.chrome).toMatchObject({ verdict: "eme", keySystem: "com.widevine.alpha" });
    expect(compatibility.edge.verdict).toBe("eme");
    expect(compatibility.safari.verdict).toBe("no");
    for (const v of Object.values(compatibility) as { verdict: string }[]) expect(v.verdict).not.toBe("native");
    const full = await inspect(url, "profile=full&debug=true");
    expect(full.status).toBe(200);
    expect(full.body.processing.status).toBe("complete");
    const stages = full.body.data.diagnostics.stages;
    expect(stages["preview:thumbnail"]).toMatchObject({ state: "failed", error: "encrypted" });
    expect(full.body.data.metadata.protection).toEqual(fast.body.data.metadata.protection);
  });

  it("MPEG-TS with CEA-608 in the H.264 SEI: a captions track and accessibility.captions in fast", async () => {
    const { body } = await inspect(media("cc.ts"), "profile=fast");
    expect(body.data.metadata.tracks.text).toEqual([{ kind: "captions", format: "cea-608" }]);
    expect(body.data.accessibility.captions).toBe(true);
  });
});
