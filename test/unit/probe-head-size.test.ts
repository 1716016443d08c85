import { describe, expect, it } from "vitest";
import { getConfig } from "../../worker/config/config.ts";
import { probeHeadBytes } from "../../worker/probe/head-size.ts";

describe("first Range request size", () => {
  const config = getConfig({});

  it("is one initial window (16 KiB) unless the name says front-loaded audio", () => {
    expect(probeHeadBytes("https://media.example/clip.mp4", config)).toBe(16 * 1024);
    expect(probeHeadBytes("https://media.example/photo.JPG", config)).toBe(16 * 1024);
    expect(probeHeadBytes("https://media.example/", config)).toBe(16 * 1024);
    expect(probeHeadBytes("https://media.example/download?id=7", config)).toBe(16 * 1024);
  });

  it("is 4 KiB for .mp3, .flac, .wav, .ogg... in any case, ignoring the query", () => {
    for (const name of ["a.mp3", "b.FLAC", "c.wav", "d.ogg", "e.opus", "f.aac"]) {
      expect(probeHeadBytes(`https://media.example/x/${name}?t=1#frag`, config), name).toBe(4 * 1024);
    }
  });

  it("reads the extension of the file's name as metadata.filename reports it (the last non-empty segment)", () => {
    expect(probeHeadBytes("https://media.example/song.mp3/", config)).toBe(4 * 1024);
    expect(probeHeadBytes("https://media.example/song%2Emp3", config)).toBe(4 * 1024);
    expect(probeHeadBytes("https://media.example/song.mp3/cover.jpg", config)).toBe(16 * 1024);
    expect(probeHeadBytes("https://media.example/.mp3", config)).toBe(16 * 1024);
  });

  it("never exceeds PROBE_HEAD_BYTES, and follows PROBE_FRONT_HEAD_BYTES", () => {
    expect(probeHeadBytes("https://media.example/a.mp3", getConfig({ PROBE_HEAD_BYTES: "2048" }))).toBe(2048);
    expect(probeHeadBytes("https://media.example/a.mp3", getConfig({ PROBE_FRONT_HEAD_BYTES: "8192" }))).toBe(8192);
  });
});
