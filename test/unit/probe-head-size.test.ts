import { describe, expect, it } from "vitest";
import { getConfig } from "../../worker/config/config.ts";
import { probeHeadBytes } from "../../worker/probe/head-size.ts";

describe("first Range request size", () => {
  const config = getConfig({});

  it("is one initial window (16 KiB) unless the name says front-loaded audio or an MP4 family file", () => {
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

  it("is 8 windows (128 KiB) for .mp4, .m4v, .mov, .3gp: a faststart moov of a minute of 1080p fits in one read", () => {
    for (const name of ["clip.mp4", "b.M4V", "d.mov", "e.3gp"]) {
      expect(probeHeadBytes(`https://media.example/x/${name}?t=1`, config), name).toBe(128 * 1024);
    }
    expect(probeHeadBytes("https://media.example/clip.mp4", getConfig({ PROBE_HEAD_BYTES: "4096" }))).toBe(32 * 1024);
    expect(probeHeadBytes("https://media.example/clip.mp4.jpg", config)).toBe(16 * 1024);
    expect(probeHeadBytes("https://media.example/song.m4a", config)).toBe(16 * 1024);
  });

  it("never exceeds PROBE_HEAD_BYTES, and follows PROBE_FRONT_HEAD_BYTES", () => {
    expect(probeHeadBytes("https://media.example/a.mp3", getConfig({ PROBE_HEAD_BYTES: "2048" }))).toBe(2048);
    expect(probeHeadBytes("https://media.example/a.mp3", getConfig({ PROBE_FRONT_HEAD_BYTES: "8192" }))).toBe(8192);
  });
});
