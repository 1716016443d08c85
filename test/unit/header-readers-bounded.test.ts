// Issue 23: the MPEG-PS timing, AMR frame and JPEG 2000 / netpbm header readers on files ffmpeg makes (codec
// names as ffprobe gives them) and on hostile bytes (truncated, lying lengths, endless comments): they answer
// from what they can read, in bounded time, and never throw.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RangeByteSource } from "../../worker/bytes/byte-source.ts";
import type { FetchPolicy } from "../../worker/fetch/index.ts";
import { readMpegPs } from "../../worker/probe/mpegps-timing.ts";
import { readAmr } from "../../worker/probe/amr-frames.ts";
import { jpeg2000ColorFacts, netpbmColorFacts } from "../../worker/image/header/jpeg2000-netpbm-facts.ts";
import { decodeBc6hBlock, decodeBc7Block } from "../../media-runner/src/media/bptc-blocks.ts";
import { bptcTextureOf, decodeBptcSurface } from "../../media-runner/src/media/dds-bptc.ts";
import { oldJpegStream, readFirstIfd, tiffLzw, unpack12BitTiff } from "../../media-runner/src/media/tiff-legacy.ts";
import { dx10Dds, dxgi } from "../../testkit/texture-fixtures.ts";
import { editSpan, readEditList } from "../../worker/probe/mp4-edit-list.ts";

const dir = join(tmpdir(), "media-inspect-ps-fixtures");
const ffprobe = (file: string) => JSON.parse(execFileSync(process.env.FFPROBE_PATH ?? "ffprobe", ["-v", "quiet", "-of", "json",
  "-show_format", "-show_streams", join(dir, file)]).toString("utf8")) as { format: { duration: string }; streams: { codec_name: string; sample_rate?: string; channels?: number }[] };

/** A byte source holding every byte (no request leaves the process). */
function held(bytes: Uint8Array): RangeByteSource {
  const source = new RangeByteSource("http://127.0.0.1:9/unused", bytes.length, true, {} as FetchPolicy, 0, 1024);
  source.addSegment(0, bytes);
  return source;
}

const tone = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "3", "-ac", "2"];
const picture = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "3"];
/** Program streams as DVD authoring and capture tools write them: each video and audio codec a PS carries. */
const programStreams: Record<string, string[]> = {
  "ac3-only.vob": [...tone, "-c:a", "ac3", "-f", "vob"],
  "mpeg2-ac3.vob": [...picture, ...tone, "-c:v", "mpeg2video", "-b:v", "4M", "-c:a", "ac3", "-f", "vob"],
  "mpeg2-lpcm.vob": [...picture, ...tone, "-c:v", "mpeg2video", "-c:a", "pcm_s16be", "-f", "vob"],
  "mpeg1-mp2.mpg": [...picture, ...tone, "-c:v", "mpeg1video", "-c:a", "mp2", "-f", "mpeg"],
  "h264-mp2.mpg": [...picture, ...tone, "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "mp2", "-f", "mpeg"],
  "ntsc-video-only.vob": [...picture, "-c:v", "mpeg2video", "-r", "30000/1001", "-f", "vob"],
};

beforeAll(() => {
  mkdirSync(dir, { recursive: true });
  // The VOB muxer complains about LPCM buffer sizes at error level; the file is fine (ffprobe reads it).
  for (const [file, args] of Object.entries(programStreams)) {
    execFileSync(process.env.FFMPEG_PATH ?? "ffmpeg", ["-loglevel", "fatal", "-y", ...args, join(dir, file)], { stdio: "pipe" });
  }
}, 120_000);

describe("MPEG program stream timing", () => {
  it("a DVD program stream with only AC-3 (private stream 1) is audio: codec, rate, channels and duration as ffprobe", async () => {
    const bytes = new Uint8Array(readFileSync(join(dir, "ac3-only.vob")));
    const ref = ffprobe("ac3-only.vob");
    const facts = (await readMpegPs(held(bytes), bytes.subarray(0, 16 * 1024)))!;
    expect(facts).toMatchObject({ video: 0, audio: 1, audioCodec: ref.streams[0]!.codec_name, sampleRate: Number(ref.streams[0]!.sample_rate),
      channels: ref.streams[0]!.channels, durationFrom: "packets-counted" });
    expect(Math.abs(facts.durationSeconds! - Number(ref.format.duration)) / Number(ref.format.duration)).toBeLessThanOrEqual(0.02);
  });

  it.each(Object.keys(programStreams).filter((f) => f !== "ac3-only.vob"))("%s: codecs, size, fps, sample rate and duration as ffprobe reads them", async (file) => {
    const bytes = new Uint8Array(readFileSync(join(dir, file)));
    const ref = JSON.parse(execFileSync(process.env.FFPROBE_PATH ?? "ffprobe", ["-v", "quiet", "-of", "json", "-show_format", "-show_streams",
      join(dir, file)]).toString("utf8")) as { format: { duration: string }; streams: { codec_type: string; codec_name: string; width?: number;
      height?: number; r_frame_rate?: string; sample_rate?: string; channels?: number }[] };
    const facts = (await readMpegPs(held(bytes), bytes.subarray(0, 16 * 1024)))!;
    const video = ref.streams.find((s) => s.codec_type === "video")!;
    const audio = ref.streams.find((s) => s.codec_type === "audio");
    const [n, d] = video.r_frame_rate!.split("/").map(Number);
    expect(facts).toMatchObject({ video: 1, audio: audio ? 1 : 0, videoCodec: video.codec_name, width: video.width, height: video.height });
    expect(facts.fps).toBeCloseTo(n! / d!, 3);
    if (audio) expect(facts).toMatchObject({ audioCodec: audio.codec_name, sampleRate: Number(audio.sample_rate), channels: audio.channels });
    expect(Math.abs(facts.durationSeconds! - Number(ref.format.duration)) / Number(ref.format.duration)).toBeLessThanOrEqual(0.02);
  });

  it("a tail of junk gives the streams without a duration; a packet whose length runs past the bytes ends the walk", async () => {
    const bytes = new Uint8Array(readFileSync(join(dir, "ac3-only.vob")));
    const junk = new Uint8Array(64 * 1024).fill(0);
    const file = new Uint8Array(bytes.length + junk.length);
    file.set(bytes.subarray(0, 8192));
    const facts = await readMpegPs(held(file.subarray(0, 8192 + junk.length)), file.subarray(0, 8192));
    expect(facts).toMatchObject({ audio: 1 });
    expect(facts?.durationSeconds).toBeUndefined();
    const lying = bytes.slice(0, 4096);
    lying[0x12] = 0xff; lying[0x13] = 0xff;
    // The system header claims 64 KiB: the walk steps past the bytes held and stops. Its list names only private
    // stream 1, whose sub-streams are named in packets the walk no longer reaches: no facts, and no throw.
    await expect(readMpegPs(held(lying), lying)).resolves.toBeUndefined();
  });

  it("a tail that is one long run of pack start codes is scanned once (linear), not re-walked per candidate", async () => {
    const head = new Uint8Array(readFileSync(join(dir, "ac3-only.vob"))).subarray(0, 4096);
    const tail = new Uint8Array(32 * 1024);
    for (let o = 0; o + 4 <= tail.length; o += 4) tail.set([0, 0, 1, 0xba], o);
    const file = new Uint8Array(head.length + tail.length);
    file.set(head);
    file.set(tail, head.length);
    const started = performance.now();
    await readMpegPs(held(file), head);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe("AMR frames", () => {
  const frames = (magic: string, types: number[], sizes: number[]) => {
    const parts = [new TextEncoder().encode(magic), ...types.map((t) => { const f = new Uint8Array(t === 15 ? 1 : sizes[t]!); f[0] = (t << 3) | 4; return f; })];
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) { out.set(p, o); o += p.length; }
    return out;
  };
  const nb = [13, 14, 16, 18, 20, 21, 27, 32];

  it("every frame walked (the head is the file): the count is exact, 20 ms each, no-data frames included", () => {
    const file = frames("#!AMR\n", [7, 7, 15, 15, 0, 0, 7, 7, 7, 7], nb);
    expect(readAmr(file, file.length)).toMatchObject({ audioCodec: "amr_nb", sampleRate: 8000, channels: 1, durationSeconds: 0.2, durationFrom: "packets-counted" });
  });

  it("a larger file is extrapolated from the head's mean frame size, as an estimate", () => {
    const head = frames("#!AMR-WB\n", Array(100).fill(8), [18, 24, 33, 37, 41, 47, 51, 59, 61]);
    const facts = readAmr(head, 9 + 61 * 1000)!;
    expect(facts).toMatchObject({ audioCodec: "amr_wb", sampleRate: 16000, durationFrom: "bitrate-estimate" });
    expect(facts.durationSeconds).toBeCloseTo(20, 6);
  });

  it("a reserved frame type stops the walk; the magic alone, or another magic, is no AMR", () => {
    const file = frames("#!AMR\n", [7, 7], nb);
    const bad = new Uint8Array([...file, (12 << 3) | 4, 1, 2, 3]);
    expect(readAmr(bad, bad.length)?.durationFrom).toBe("bitrate-estimate");
    expect(readAmr(new TextEncoder().encode("#!AMR\n"), 6)).toBeUndefined();
    expect(readAmr(new TextEncoder().encode("#!AMR_MC1.0\n\0\0\0\0"), 16)).toBeUndefined();
  });
});

describe("JPEG 2000 and netpbm colour facts", () => {
  const ascii = (s: string) => new TextEncoder().encode(s);

  it("netpbm: P5 is grey, P6 colour, P7 reads TUPLTYPE or DEPTH; comments are skipped", () => {
    expect(netpbmColorFacts(ascii("P5\n# made by hand\n96 64\n255\n\0\0"))).toEqual({ colorSpace: "gray", hasAlpha: false });
    expect(netpbmColorFacts(ascii("P6 96 64 255\n\0"))).toEqual({ colorSpace: "srgb", hasAlpha: false });
    expect(netpbmColorFacts(ascii("P7\nWIDTH 4\nHEIGHT 4\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n"))).toEqual({ colorSpace: "gray", hasAlpha: true });
    expect(netpbmColorFacts(ascii("P7\nWIDTH 4\nHEIGHT 4\nDEPTH 4\nMAXVAL 255\nENDHDR\n"))).toEqual({ colorSpace: "srgb", hasAlpha: true });
  });

  it("netpbm: a header past the byte bound or without separators ends the read (no backtracking, no unbounded token)", () => {
    const endless = ascii(`P7\n#${"x".repeat(1_000_000)}\nDEPTH 4\nENDHDR\n`);
    const started = performance.now();
    expect(netpbmColorFacts(endless)).toBeUndefined();
    expect(netpbmColorFacts(ascii("P".repeat(1_000_000)))).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(200);
  });

  it("JPEG 2000: a codestream's component count; a JP2 with box sizes that lie or loop stops without facts", () => {
    const siz = new Uint8Array(48);
    siz.set([0xff, 0x4f, 0xff, 0x51]);
    siz[41] = 1;
    expect(jpeg2000ColorFacts(siz)).toEqual({ colorSpace: "gray", hasAlpha: false });
    const zeroSized = new Uint8Array(64);
    zeroSized.set([0, 0, 0, 0, 0x6a, 0x50, 0x32, 0x68]);
    expect(jpeg2000ColorFacts(zeroSized)).toBeUndefined();
    const tiny = new Uint8Array(4096);
    for (let o = 0; o + 8 <= tiny.length; o += 8) tiny.set([0, 0, 0, 8, 0x66, 0x72, 0x65, 0x65], o); // "free" boxes of 8 bytes
    expect(jpeg2000ColorFacts(tiny)).toBeUndefined();
  });
});

describe("texture and legacy TIFF readers on hostile bytes", () => {
  /** Deterministic bytes (xorshift32), so a failure reproduces. */
  const noise = (length: number, seed: number) => {
    const out = new Uint8Array(length);
    let x = seed;
    for (let i = 0; i < length; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; out[i] = x & 0xff; }
    return out;
  };
  const tiffHead = (order: "II" | "MM", body: Uint8Array) => {
    const out = new Uint8Array(8 + body.length);
    out.set(order === "II" ? [0x49, 0x49, 42, 0, 8, 0, 0, 0] : [0x4d, 0x4d, 0, 42, 0, 0, 0, 8]);
    out.set(body, 8);
    return out;
  };

  it("BC7/BC6H blocks: any 16 bytes decode to a full tile without throwing", () => {
    const rgba = new Uint8Array(64);
    const rgb = new Uint8Array(48);
    for (let seed = 1; seed <= 2000; seed++) {
      const block = noise(16, seed * 2654435761);
      expect(() => { decodeBc7Block(block, rgba); decodeBc6hBlock(block, seed % 2 === 0, rgb); }).not.toThrow();
    }
  });

  it("DDS: only a DX10 header with a BPTC format is taken; a cut or lying header decodes what is held, within the wall", () => {
    expect(bptcTextureOf(noise(4096, 3))).toBeUndefined();
    const file = dx10Dds(64, 64, dxgi.bc7, noise(64 * 16, 5));
    expect(bptcTextureOf(file)).toEqual({ format: "bc7", width: 64, height: 64 });
    expect(bptcTextureOf(file.subarray(0, 100))).toBeUndefined();
    const lying = Buffer.from(file);
    lying.writeUInt32LE(0x7fffffff, 12);
    expect(() => decodeBptcSurface(lying, bptcTextureOf(lying)!, 50_000_000)).toThrow(/over the limit/);
    lying.writeUInt32LE(4000, 12); // 4000 rows declared, 16 block rows held: the rest stays zero
    expect(decodeBptcSurface(lying, bptcTextureOf(lying)!, 50_000_000).data.length).toBe(64 * 4000 * 4);
  });

  it("TIFF directory: random, cut and lying directories give tags or nothing, never a throw or an unbounded array", () => {
    for (let seed = 1; seed <= 500; seed++) {
      const file = tiffHead(seed % 2 ? "II" : "MM", noise(600, seed * 40503));
      const tags = readFirstIfd(file);
      for (const values of tags?.values() ?? []) expect(values.length * 1).toBeLessThanOrEqual(file.length);
      if (tags) {
        expect(() => oldJpegStream(file, tags)).not.toThrow();
        try {
          unpack12BitTiff(file, new Map([...tags, [258, [12, 12, 12]], [256, [40]], [257, [30]]]), 50_000_000);
        } catch (error) {
          expect((error as Error).name).toBe("RunnerError");
        }
      }
    }
    expect(readFirstIfd(new Uint8Array([0x49, 0x49, 42, 0, 0xff, 0xff, 0xff, 0xff]))).toBeUndefined();
  });

  it("LZW: random codes, a code past the table and endless clear codes stop at the output bound", () => {
    for (let seed = 1; seed <= 300; seed++) expect(tiffLzw(noise(2048, seed * 69069), 10_000).length).toBeLessThanOrEqual(10_000);
    const clears = new Uint8Array(100_000).fill(0x80); // 9-bit code 256 over and over: no output
    expect(tiffLzw(clears, 1000).length).toBe(0);
  });

  it("MP4 edit lists: random bodies and lying counts give at most the edits the body holds, and a finite span or none", () => {
    for (let seed = 1; seed <= 500; seed++) {
      const body = noise(8 + (seed % 7) * 20, seed * 2246822519);
      const edits = readEditList(body, 0, body.length);
      expect(edits.length).toBeLessThanOrEqual(Math.floor((body.length - 8) / 12));
      const span = editSpan(edits, 1 + (seed % 90000));
      if (span) expect(Number.isFinite(span.startSeconds) && (span.presentedSeconds === undefined || Number.isFinite(span.presentedSeconds))).toBe(true);
    }
  });

  it("JPEG 2000: a colr box with an ICC profile of random or cut bytes gives facts or none, never a throw", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const icc = noise(seed % 3 === 0 ? 40 : 200, seed * 1103515245);
      const jp2 = new Uint8Array(8 + 22 + 11 + icc.length);
      const view = new DataView(jp2.buffer);
      view.setUint32(0, jp2.length); jp2.set([0x6a, 0x70, 0x32, 0x68], 4); // jp2h
      view.setUint32(8, 22); jp2.set([0x69, 0x68, 0x64, 0x72], 12); view.setUint16(24, 3); // ihdr, 3 components
      view.setUint32(30, 11 + icc.length - (seed % 5)); jp2.set([0x63, 0x6f, 0x6c, 0x72], 34); jp2[38] = 2 + (seed % 2);
      jp2.set(icc, 41);
      expect(() => jpeg2000ColorFacts(jp2)).not.toThrow();
      expect(jpeg2000ColorFacts(jp2)?.hasAlpha).toBe(false);
    }
  });

  it("an old-style-JPEG directory whose table offsets point past the file rebuilds nothing", () => {
    const tags = new Map<number, number[]>([[256, [16]], [257, [16]], [259, [6]], [262, [6]], [277, [3]], [273, [8]], [279, [4]],
      [519, [1e9, 1e9, 1e9]], [520, [8, 8, 8]], [521, [8, 8, 8]]]);
    expect(oldJpegStream(new Uint8Array(64), tags)).toBeUndefined();
    tags.set(519, [8, 8, 8]);
    tags.set(520, [0, 0, 0]); // 16 count bytes of 0xff: more symbols than a table has
    expect(oldJpegStream(new Uint8Array(256).fill(0xff), tags)).toBeUndefined();
  });
});
