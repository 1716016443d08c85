// MPEG-TS segments as streaming packagers cut them: a clock that rolls over 2^33, a segment that starts before
// its first keyframe, HEVC (no frame rate in a header the edge reads), interlaced H.264 and MPEG-2, NTSC rates,
// E-AC-3 (ATSC stream type 0x87). Made with ffmpeg at set-up; the edge's reader must give ffprobe's duration
// (format), r_frame_rate, sample rate and channels. Then the reader on seeded corruptions: never throws, bounded.
// HLS packed audio (ADTS behind an ID3 timestamp tag): frames counted.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RangeByteSource } from "../../worker/bytes/byte-source.ts";
import type { FetchPolicy } from "../../worker/fetch/index.ts";
import { frameRateFromPts, readMpegTs } from "../../worker/probe/mpegts-timing.ts";
import { corrupt } from "../../testkit/reliability/fuzz.ts";
import { isPackedAudio, readAdts } from "../../worker/probe/adts-frames.ts";

const dir = join(tmpdir(), "media-inspect-ts-timing");

function held(bytes: Uint8Array): RangeByteSource {
  const source = new RangeByteSource("http://127.0.0.1:9/unused", bytes.length, true, {} as FetchPolicy, 0, 1024);
  source.addSegment(0, bytes);
  return source;
}

const picture = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "4"];
const tone = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "4"];
const x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "50"];
/** Seconds before the 2^33 clock wraps, minus a little: the segment's PTS roll over in its first second. */
const nearWrap = String(Math.floor(2 ** 33 / 90000) - 2);
const segments: Record<string, string[]> = {
  "h264-aac.ts": [...picture, ...tone, ...x264, "-c:a", "aac"],
  "rollover.ts": [...picture, ...tone, ...x264, "-c:a", "aac", "-output_ts_offset", nearWrap],
  "interlaced-h264.ts": [...picture, ...x264, "-flags", "+ildct+ilme", "-x264-params", "tff=1"],
  "ntsc-h264.ts": ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30000/1001", "-t", "4", ...x264],
  "hevc.ts": [...picture, "-c:v", "libx265", "-preset", "ultrafast", "-g", "50", "-x265-params", "log-level=none"],
  "mpeg2-eac3.ts": [...picture, ...tone, "-c:v", "mpeg2video", "-g", "12", "-c:a", "eac3"],
  "interlaced-mpeg2.ts": [...picture, "-c:v", "mpeg2video", "-flags", "+ildct+ilme", "-top", "1", "-g", "12"],
  "eac3-only.ts": [...tone, "-c:a", "eac3"],
};

interface Probe { format: { duration: string }; streams: { codec_type: string; codec_name: string; width?: number; r_frame_rate?: string; sample_rate?: string; channels?: number }[] }
const ffprobe = (file: string) => JSON.parse(execFileSync("ffprobe", ["-v", "quiet", "-of", "json", "-show_format", "-show_streams",
  join(dir, file)]).toString("utf8")) as Probe;

beforeAll(() => {
  mkdirSync(dir, { recursive: true });
  for (const [file, args] of Object.entries(segments)) {
    execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "fatal", "-nostdin", "-y", ...args, "-f", "mpegts", join(dir, file)], { stdio: "pipe" });
  }
  // A segment cut a third of the way in, at a packet boundary: it starts with B/P frames of the first GOP.
  const whole = readFileSync(join(dir, "h264-aac.ts"));
  writeFileSync(join(dir, "before-keyframe.ts"), whole.subarray(Math.floor(whole.length / 188 / 3) * 188));
}, 120_000);

const files = () => [...Object.keys(segments), "before-keyframe.ts"];

describe("MPEG-TS timing as ffprobe reads it", () => {
  it.each(files())("%s: duration, r_frame_rate, size, sample rate and channels", async (file) => {
    const bytes = new Uint8Array(readFileSync(join(dir, file)));
    const ref = ffprobe(file);
    const facts = (await readMpegTs(held(bytes), bytes.subarray(0, 16 * 1024)))!;
    const video = ref.streams.find((s) => s.codec_type === "video");
    const audio = ref.streams.find((s) => s.codec_type === "audio");
    if (video) {
      const [n, d] = video.r_frame_rate!.split("/").map(Number);
      expect(facts.fps, "fps").toBeCloseTo(n! / d!, 3);
      if (video.codec_name !== "hevc") expect(facts.width).toBe(video.width);
    }
    if (audio) expect(facts).toMatchObject({ audioCodec: audio.codec_name, sampleRate: Number(audio.sample_rate), channels: audio.channels });
    const duration = Number(ref.format.duration);
    expect(Math.abs(facts.durationSeconds! - duration) / duration, `${facts.durationSeconds} vs ${duration}`).toBeLessThanOrEqual(0.01);
  });

  it("the PTS step gives the rate a header does not: 25, 29.97 and 50 fps; across a rollover; too few times give none", () => {
    const wrap = 2 ** 33;
    expect(frameRateFromPts([0, 3600, 7200, 10800])).toBe(25);
    expect(frameRateFromPts([0, 3003 * 2, 3003, 3003 * 3])).toBeCloseTo(30000 / 1001, 9); // B-frame order
    expect(frameRateFromPts([wrap - 1800, 0 + 0, 1800, 3600].map((t) => t % wrap))).toBe(50);
    expect(frameRateFromPts([0, 3600])).toBeUndefined();
  });
});

describe("the reader on damaged segments", () => {
  it("400 seeded corruptions (flips, cuts, zeroed runs, repeats): never throws, each read in bounded time", async () => {
    const sources = files().map((f) => readFileSync(join(dir, f)));
    let slowest = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const bytes = new Uint8Array(corrupt(sources[seed % sources.length]!, seed));
      const started = performance.now();
      const facts = await readMpegTs(held(bytes), bytes.subarray(0, 64 * 1024));
      slowest = Math.max(slowest, performance.now() - started);
      if (facts?.durationSeconds !== undefined) expect(facts.durationSeconds).toBeGreaterThan(0);
      if (facts?.fps !== undefined) expect(facts.fps).toBeGreaterThan(0);
    }
    expect(slowest).toBeLessThan(1000);
  });
});

describe("HLS packed audio (ADTS behind an ID3 PRIV transport-stream timestamp)", () => {
  const packed = (adts: Buffer) => {
    const owner = Buffer.from("com.apple.streaming.transportStreamTimestamp\0", "latin1");
    const pts = Buffer.alloc(8);
    pts.writeBigUInt64BE(900000n); // 10 s on the 90 kHz clock
    const body = Buffer.concat([owner, pts]);
    const syncsafe = (n: number) => Buffer.from([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f]);
    const frame = Buffer.concat([Buffer.from("PRIV"), syncsafe(body.length), Buffer.from([0, 0]), body]);
    return Buffer.concat([Buffer.from([0x49, 0x44, 0x33, 4, 0, 0]), syncsafe(frame.length), frame, adts]);
  };

  it("a segment's frames are counted (ffprobe's packets), a plain ADTS file keeps the bitrate estimate", async () => {
    execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "fatal", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-t", "6",
      "-c:a", "aac", "-b:a", "64k", "-f", "adts", join(dir, "packed-src.aac")]);
    const adts = readFileSync(join(dir, "packed-src.aac"));
    const file = new Uint8Array(packed(adts));
    writeFileSync(join(dir, "packed.aac"), file);
    const packets = execFileSync("ffprobe", ["-v", "quiet", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", join(dir, "packed.aac")]).toString().trim();
    expect(isPackedAudio(file)).toBe(true);
    expect(isPackedAudio(new Uint8Array(adts))).toBe(false);
    const facts = readAdts(file, file.length, true)!;
    expect(facts).toMatchObject({ sampleRate: 44100, durationFrom: "packets-counted" });
    expect(facts.durationSeconds).toBeCloseTo((Number(packets) * 1024) / 44100, 6);
    expect(readAdts(new Uint8Array(adts), adts.length)?.durationFrom).toBe("bitrate-estimate");
    // Bounded on hostile bytes: a tag that claims to be huge, frames that stop early.
    const hostile = new Uint8Array(file);
    hostile.fill(0xff, 9, 10);
    expect(() => isPackedAudio(hostile)).not.toThrow();
    expect(readAdts(file.subarray(0, 5000), file.length, true)?.durationFrom).toBe("bitrate-estimate");
  });
});
