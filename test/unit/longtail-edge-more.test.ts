// The edge's readers for raw H.264/HEVC streams, non-PCM WAVE and Ogg video, scored against ffprobe on files
// ffmpeg makes (testkit/longtail-more-fixtures.ts), and each new header reader fed random and truncated bytes.
// The byte source holds the whole file so no request leaves the process; the readers see a 16 KiB head.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureLongtailMoreFixtures, oggVideoFiles, rawVideoFiles, waveCodecFiles } from "../../testkit/longtail-more-fixtures.ts";
import { RangeByteSource } from "../../worker/bytes/byte-source.ts";
import type { FetchPolicy } from "../../worker/fetch/index.ts";
import { sniffMime } from "../../worker/probe/sniff-mime.ts";
import { decideCategory, hasTrackList } from "../../worker/probe/evidence.ts";
import { readEdgeMediaFacts } from "../../worker/probe/edge-media-facts.ts";
import { readAnnexB } from "../../worker/probe/annexb-stream.ts";
import { parseHevcSps, parseHevcVpsRate } from "../../worker/probe/hevc-parameter-sets.ts";
import { readWave } from "../../worker/probe/wave-header.ts";
import { oggVideoSeconds, readOggVp8Header, readTheoraHeader } from "../../worker/probe/ogg-video.ts";

const dir = join(import.meta.dirname, "..", ".fixtures", "longtail-more");
const headBytes = 16 * 1024;

interface Stream {
  codec_type: string; codec_name: string; profile?: string; width?: number; height?: number; pix_fmt?: string; r_frame_rate?: string;
  sample_rate?: string; channels?: number; bits_per_sample?: number; sample_aspect_ratio?: string;
}
interface Probe { format: { duration?: string }; streams: Stream[] }

function ffprobe(file: string): Probe {
  return JSON.parse(execFileSync("ffprobe", ["-v", "quiet", "-of", "json", "-show_format", "-show_streams", join(dir, file)]).toString("utf8")) as Probe;
}

async function edgeFacts(file: string) {
  const bytes = new Uint8Array(readFileSync(join(dir, file)));
  const head = bytes.subarray(0, headBytes);
  const mime = await sniffMime(head, "application/octet-stream");
  const source = new RangeByteSource("http://127.0.0.1:9/unused", bytes.length, true, {} as FetchPolicy, bytes.length, 1024);
  source.addSegment(0, bytes);
  const facts = await readEdgeMediaFacts(source, mime, head);
  // The first inspection reads the container only for these (worker/stages/first-inspection.ts).
  expect(hasTrackList(mime) || mime.startsWith("audio/")).toBe(true);
  return { mime, facts, decision: decideCategory(mime, facts?.tracks) };
}

const ratio = (r: string | undefined) => { const [n, d] = (r ?? "0/0").split("/").map(Number); return d ? n! / d : undefined; };

beforeAll(() => { ensureLongtailMoreFixtures(dir); }, 120_000);

describe("raw H.264 / HEVC elementary streams", () => {
  it.each(rawVideoFiles)("%s: video/H264 or video/H265, size, profile, fps and pixel format as ffprobe reads them", async (file) => {
    const probe = ffprobe(file);
    const stream = probe.streams[0]!;
    const { mime, facts, decision } = await edgeFacts(file);
    expect(mime).toBe(stream.codec_name === "hevc" ? "video/H265" : "video/H264");
    expect(decision.category).toBe("video");
    const video = facts?.video;
    expect(video).toMatchObject({ codec: stream.codec_name, width: stream.width, height: stream.height, profile: stream.profile });
    expect(video?.fps).toBeCloseTo(ratio(stream.r_frame_rate)!, 2);
    if (stream.codec_name === "hevc") expect(video?.pixelFormat).toBe(stream.pix_fmt);
    // A raw stream has no timestamps: ffprobe states no duration, nor does the edge.
    expect(probe.format.duration).toBeUndefined();
    expect(video?.duration).toBeUndefined();
    expect(facts?.codecs?.[0]).toMatch(stream.codec_name === "hevc" ? /^hvc1\.[12]\.\d+\.L\d+/ : /^avc1\.(4D|64)[0-9A-F]{4}$/);
  });

  it("the codecs entry carries the SPS's own profile, constraints and level", async () => {
    const { facts } = await edgeFacts("lt-raw-high.264");
    const bytes = readFileSync(join(dir, "lt-raw-high.264"));
    const sps = bytes.indexOf(Buffer.from([0, 0, 1, 0x67]));
    const expected = `avc1.${bytes.subarray(sps + 4, sps + 7).toString("hex").toUpperCase()}`;
    expect(facts?.codecs).toEqual([expected]);
  });
});

describe("WAVE files of non-PCM format tags", () => {
  it.each(waveCodecFiles)("%s: codec, rate, channels, bits and duration as ffprobe reads them", async (file) => {
    const probe = ffprobe(file);
    const stream = probe.streams[0]!;
    const { mime, facts, decision } = await edgeFacts(file);
    expect(mime).toBe("audio/wav");
    expect(decision.category).toBe("audio");
    expect(facts?.audio).toMatchObject({ codec: stream.codec_name, sampleRate: Number(stream.sample_rate), channels: stream.channels });
    expect(facts?.audio?.duration?.seconds).toBeCloseTo(Number(probe.format.duration), 2);
    // The runner reports a bit depth for PCM-family codecs only (metadata.ts): the edge does the same.
    expect(facts?.audio?.bitDepth).toBe(/^pcm_/.test(stream.codec_name) ? stream.bits_per_sample : undefined);
  });
});

describe("Ogg video", () => {
  it.each(oggVideoFiles)("%s: video with codec, size, fps and duration as ffprobe reads them", async (file) => {
    const probe = ffprobe(file);
    const stream = probe.streams.find((s) => s.codec_type === "video")!;
    const { facts, decision } = await edgeFacts(file);
    expect(decision).toMatchObject({ category: "video", mime: "video/ogg" });
    expect(facts?.video).toMatchObject({ codec: stream.codec_name, width: stream.width, height: stream.height, pixelFormat: stream.pix_fmt });
    expect(facts?.video?.fps).toBeCloseTo(ratio(stream.r_frame_rate)!, 2);
    expect(facts?.video?.duration?.seconds).toBeCloseTo(Number(probe.format.duration), 2);
  });
});

/** A deterministic generator (xorshift32), so a failing case can be replayed. */
function random(seed: number) {
  let x = seed >>> 0 || 1;
  return () => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x; };
}

describe("the new header readers on hostile bytes", () => {
  const samples = [...rawVideoFiles, ...waveCodecFiles, ...oggVideoFiles].map((file) => new Uint8Array(readFileSync(join(dir, file)).subarray(0, headBytes)));
  const readers: [string, (b: Uint8Array) => unknown][] = [
    ["readAnnexB", readAnnexB],
    ["parseHevcSps", parseHevcSps],
    ["parseHevcVpsRate", parseHevcVpsRate],
    ["readWave", (b) => readWave(b, b.length * 4)],
    ["readTheoraHeader", (b) => { const h = readTheoraHeader(b); return h && oggVideoSeconds(h, 0xffffffff, 0xffffffff); }],
    ["readOggVp8Header", readOggVp8Header],
  ];

  it.each(readers)("%s: truncations, bit flips and random bytes never throw", (_name, read) => {
    const next = random(0x9e3779b9);
    let calls = 0;
    for (const sample of samples) {
      // Every prefix length up to 600 bytes, then cuts across the whole head.
      for (let n = 0; n <= Math.min(600, sample.length); n++) { read(sample.subarray(0, n)); calls++; }
      for (let i = 0; i < 200; i++) {
        const copy = sample.slice(0, 64 + (next() % (sample.length - 63)));
        for (let f = 0; f < 8; f++) { const at = next() % copy.length; copy[at] = copy[at]! ^ (1 << (next() % 8)); }
        read(copy);
        // The same bytes after a start code / at offset 0, where the readers look first.
        read(copy.subarray(next() % 64));
        calls += 2;
      }
    }
    for (let i = 0; i < 2000; i++) {
      const bytes = new Uint8Array(4 + (next() % 4096)).map(() => next() & 0xff);
      if (i % 2 === 0) bytes.set([0, 0, 0, 1], 0);
      read(bytes);
      calls++;
    }
    expect(calls).toBeGreaterThan(5000);
  });

  it("all-ones and all-zero parameter sets stay bounded (every Exp-Golomb code at its 32-zero cap)", () => {
    for (const fill of [0x00, 0xff]) {
      const sps = new Uint8Array(1024).fill(fill);
      expect(() => parseHevcSps(sps)).not.toThrow();
      expect(() => parseHevcVpsRate(sps)).not.toThrow();
      expect(() => readAnnexB(new Uint8Array([0, 0, 0, 1, 0x42, 0x01, ...sps]))).not.toThrow();
      expect(() => readAnnexB(new Uint8Array([0, 0, 0, 1, 0x67, ...sps]))).not.toThrow();
    }
  });

  it("a WAVE head of 32 chunks that never reaches its data, or whose sizes overrun, gives nothing rather than a guess", () => {
    const chunk = (id: string, size: number) => { const b = Buffer.alloc(8 + size); b.write(id, 0, "latin1"); b.writeUInt32LE(size, 4); return b; };
    const fmt = chunk("fmt ", 16);
    fmt.writeUInt16LE(0x11, 8); fmt.writeUInt16LE(1, 10); fmt.writeUInt32LE(8000, 12); fmt.writeUInt32LE(4000, 16);
    const head = Buffer.concat([Buffer.from("RIFF\0\0\0\0WAVE", "latin1"), fmt, ...Array.from({ length: 40 }, () => chunk("junk", 2)), chunk("data", 0)]);
    expect(readWave(head, head.length)).toBeUndefined();
    const overrun = Buffer.concat([Buffer.from("RIFF\0\0\0\0WAVE", "latin1"), fmt, Buffer.from("LIST\xff\xff\xff\xff", "latin1")]);
    expect(readWave(overrun, 1e9)).toBeUndefined();
  });
});
