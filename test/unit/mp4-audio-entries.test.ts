// MP4/MOV audio sample entries the edge misread: QuickTime's SoundDescriptionV2 (hi-res audio, Apple's xHE-AAC
// files: the common fields hold placeholders, 3 channels at 1 Hz) with its esds inside a `wave` box, and USAC
// (xHE-AAC, object type 42 behind the escape code) whose AudioSpecificConfig states the output rate. Files made
// with ffmpeg; the USAC config is patched into an ffmpeg AAC file (ffmpeg 5.1 has no USAC encoder).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RangeByteSource } from "../../worker/bytes/byte-source.ts";
import type { FetchPolicy } from "../../worker/fetch/index.ts";
import { readMp4 } from "../../worker/probe/mp4-boxes.ts";
import { corrupt } from "../../testkit/reliability/fuzz.ts";

const dir = join(tmpdir(), "media-inspect-mp4-audio");
const ffmpeg = (...args: string[]) => execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "fatal", "-nostdin", "-y", ...args], { stdio: "pipe" });

function held(bytes: Uint8Array): RangeByteSource {
  const source = new RangeByteSource("http://127.0.0.1:9/unused", bytes.length, true, {} as FetchPolicy, 0, 1024);
  source.addSegment(0, bytes);
  return source;
}

const ffprobeAudio = (file: string) => (JSON.parse(execFileSync("ffprobe", ["-v", "quiet", "-of", "json", "-show_streams", join(dir, file)])
  .toString()) as { streams: { sample_rate: string; channels: number }[] }).streams[0]!;

beforeAll(() => {
  mkdirSync(dir, { recursive: true });
  const tone = (rate: number) => ["-f", "lavfi", "-i", `sine=sample_rate=${rate}`, "-t", "2"];
  ffmpeg(...tone(96000), "-c:a", "aac", join(dir, "hires-aac.mov"));
  ffmpeg(...tone(96000), "-ac", "2", "-c:a", "pcm_s24le", join(dir, "hires-pcm.mov"));
  ffmpeg(...tone(44100), "-c:a", "aac", join(dir, "lc.m4a"));
}, 60_000);

describe("audio sample entries", () => {
  it.each(["hires-aac.mov", "hires-pcm.mov"])("%s (SoundDescriptionV2): sample rate and channels as ffprobe reads them", async (file) => {
    const bytes = new Uint8Array(readFileSync(join(dir, file)));
    const track = (await readMp4(held(bytes)))!.tracks.find((t) => t.kind === "audio")!;
    const ref = ffprobeAudio(file);
    expect(track).toMatchObject({ sampleRate: Number(ref.sample_rate), channels: ref.channels });
  });

  it("an esds inside the wave box still gives the AAC object type", async () => {
    const track = (await readMp4(held(new Uint8Array(readFileSync(join(dir, "hires-aac.mov"))))))!.tracks[0]!;
    expect(track.codecConfig).toEqual({ codec: "aac", objectType: 2 });
  });

  it("USAC (xHE-AAC): object type 42 and the config's 48 kHz win over the entry's 44100", async () => {
    const bytes = Buffer.from(readFileSync(join(dir, "lc.m4a")));
    // The DecoderSpecificInfo (tag 5) of the esds: AAC-LC at 44.1 kHz (12 08); USAC at 48 kHz is F9 46 (31, 10, 3).
    const esds = bytes.indexOf("esds");
    const dsi = bytes.indexOf(Buffer.from([0x12, 0x08]), esds);
    expect(dsi).toBeGreaterThan(esds);
    bytes[dsi] = 0xf9;
    bytes[dsi + 1] = 0x46;
    const track = (await readMp4(held(new Uint8Array(bytes))))!.tracks[0]!;
    expect(track).toMatchObject({ sampleRate: 48000, codecConfig: { codec: "aac", objectType: 42 } });
  });

  it("300 seeded corruptions of the three files: the reader never throws", async () => {
    const files = ["hires-aac.mov", "hires-pcm.mov", "lc.m4a"].map((f) => readFileSync(join(dir, f)));
    for (let seed = 1; seed <= 300; seed++) {
      const bytes = new Uint8Array(corrupt(files[seed % 3]!, seed));
      const facts = await readMp4(held(bytes)).catch((e: unknown) => e);
      expect(facts instanceof Error ? facts.message : "ok").toBe("ok");
    }
  });
});
