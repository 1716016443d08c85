// Issue 23: the containers the edge used to leave pending in `fast` (AC-3, E-AC-3, ADTS AAC, RF64, FLV, AVI),
// and the anamorphic / frame-rate cases, read from their headers and scored against ffprobe on files ffmpeg makes.
// The byte source holds the whole file so no request leaves the process; the readers see the 16 KiB head.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureHeaderFixtures } from "../../testkit/header-fixtures.ts";
import { RangeByteSource } from "../../worker/bytes/byte-source.ts";
import type { FetchPolicy } from "../../worker/fetch/index.ts";
import { sniffMime } from "../../worker/probe/sniff-mime.ts";
import { decideCategory, hasTrackList } from "../../worker/probe/evidence.ts";
import { readEdgeMediaFacts } from "../../worker/probe/edge-media-facts.ts";
import { sttsRate } from "../../worker/probe/mp4-boxes.ts";

const dir = join(tmpdir(), "media-inspect-header-fixtures");
const headBytes = 16 * 1024;

interface Ffprobe { format: { duration?: string }; streams: { codec_type: string; codec_name: string; width?: number; height?: number;
  sample_rate?: string; channels?: number; r_frame_rate?: string; sample_aspect_ratio?: string }[] }

function ffprobe(file: string): Ffprobe {
  return JSON.parse(execFileSync(process.env.FFPROBE_PATH ?? "ffprobe", ["-v", "quiet", "-of", "json", "-show_format", "-show_streams",
    join(dir, file)]).toString("utf8")) as Ffprobe;
}

async function edgeFacts(file: string) {
  const bytes = new Uint8Array(readFileSync(join(dir, file)));
  const head = bytes.subarray(0, headBytes);
  const mime = await sniffMime(head, undefined);
  // Never used: every byte is held, so the source makes no request.
  const source = new RangeByteSource("http://127.0.0.1:9/unused", bytes.length, true, {} as FetchPolicy, bytes.length, 1024);
  source.addSegment(0, bytes);
  const facts = await readEdgeMediaFacts(source, mime, head);
  return { mime, facts, decision: decideCategory(mime, facts?.tracks), reads: hasTrackList(mime) || mime.startsWith("audio/") };
}

const ratio = (r: string | undefined) => { const [n, d] = (r ?? "0/0").split("/").map(Number); return d ? n! / d : undefined; };

beforeAll(() => { ensureHeaderFixtures(dir); }, 120_000);

describe("containers read from their headers match ffprobe", () => {
  it.each([
    ["mono.ac3", "ac3-sync", "bitrate-estimate"],
    ["stereo.eac3", "ac3-sync", "bitrate-estimate"],
    ["mono.aac", "adts-frames", "bitrate-estimate"],
    ["rf64.wav", "rf64-ds64", "header"],
    ["audio-only.ts", "mpegts-pmt", "packets-counted"],
    ["ac3-only.ts", "mpegts-pmt", "packets-counted"],
  ] as const)("%s (reader %s, duration from %s): audio, duration within 2 %%, sample rate, channels, codec", async (file, reader, durationFrom) => {
    const ref = ffprobe(file);
    const stream = ref.streams.find((s) => s.codec_type === "audio")!;
    const { facts, decision, reads } = await edgeFacts(file);
    expect(reads).toBe(true);
    // Plain audio containers have no track list to weigh: the bytes decide, the reader supplies the facts.
    expect(decision.category).toBe("audio");
    expect(facts!.tracks?.source).toBe(reader);
    const audio = facts!.audio!;
    expect(Math.abs(audio.duration!.seconds - Number(ref.format.duration)) / Number(ref.format.duration)).toBeLessThanOrEqual(0.02);
    expect(audio.sampleRate).toBe(Number(stream.sample_rate));
    expect(audio.channels).toBe(stream.channels);
    expect(audio.codec).toBe(stream.codec_name);
    expect(audio.sources).toMatchObject({ duration: durationFrom, sampleRate: "header" });
  });

  it.each([
    ["video.flv", "flv-onmetadata", "header"],
    ["video.avi", "avi-hdrl", "header"],
    ["h264-aac.ts", "mpegts-pmt", "packets-counted"],
    ["mpeg2-mp2.ts", "mpegts-pmt", "packets-counted"],
  ] as const)("%s: video with its duration, fps, size, codec (reader %s, duration from %s)", async (file, reader, durationFrom) => {
    const ref = ffprobe(file);
    const stream = ref.streams.find((s) => s.codec_type === "video")!;
    const { facts, decision, reads } = await edgeFacts(file);
    expect(reads).toBe(true);
    expect(decision).toMatchObject({ category: "video", evidence: `tracks:${reader}` });
    const video = facts!.video!;
    expect(Math.abs(video.duration!.seconds - Number(ref.format.duration)) / Number(ref.format.duration)).toBeLessThanOrEqual(0.02);
    expect(video.fps).toBeCloseTo(ratio(stream.r_frame_rate)!, 2);
    expect([video.width, video.height]).toEqual([stream.width, stream.height]);
    expect(video.codec).toBe(stream.codec_name);
    // A transport stream's first audio PES may start past the head: its channels are then the runner's.
    if (video.channels !== undefined || reader !== "mpegts-pmt") expect(video.channels).toBe(ref.streams.find((s) => s.codec_type === "audio")!.channels);
    expect(video.sources).toMatchObject({ duration: durationFrom, fps: "header", dimensions: "header", bitrate: "bitrate-estimate" });
  });
});

describe("fragmented MP4 without mehd", () => {
  it.each([["fragmented-mfra.mp4", "packets-counted"], ["fragmented-sidx.mp4", "header"]] as const)("%s: the whole duration (from %s), not the moov's first fragment", async (file, durationFrom) => {
    const ref = ffprobe(file);
    const stream = ref.streams.find((s) => s.codec_type === "video")!;
    const { facts, decision } = await edgeFacts(file);
    expect(decision.category).toBe("video");
    const video = facts!.video!;
    expect(Math.abs(video.duration!.seconds - Number(ref.format.duration)) / Number(ref.format.duration)).toBeLessThanOrEqual(0.02);
    expect(video.fps).toBeCloseTo(ratio(stream.r_frame_rate)!, 3);
    expect([video.width, video.height]).toEqual([stream.width, stream.height]);
    expect(video.sources?.duration).toBe(durationFrom);
  });
});

describe("coded and displayed sizes, declared frame rate", () => {
  it.each(["anamorphic.mp4", "anamorphic.mkv"])("%s: coded 720x576, shown 1024x576, SAR 64:45 as ffprobe says", async (file) => {
    const stream = ffprobe(file).streams.find((s) => s.codec_type === "video")!;
    const video = (await edgeFacts(file)).facts!.video!;
    expect([video.codedWidth, video.codedHeight]).toEqual([stream.width, stream.height]);
    expect(video.sampleAspectRatio).toBe(stream.sample_aspect_ratio);
    const [n, d] = stream.sample_aspect_ratio!.split(":").map(Number);
    expect([video.width, video.height]).toEqual([Math.round((stream.width! * n!) / d!), stream.height]);
    expect(video.fps).toBeCloseTo(ratio(stream.r_frame_rate)!, 3);
  });

  it("an MP4 whose last frame lasts 2 s: fps is r_frame_rate (30), not frames over the track's duration (6)", async () => {
    const stream = ffprobe("long-last-frame.mp4").streams.find((s) => s.codec_type === "video")!;
    const video = (await edgeFacts("long-last-frame.mp4")).facts!.video!;
    expect(video.fps).toBe(ratio(stream.r_frame_rate));
    expect(video.sources?.fps).toBe("sample-tables");
  });

  it("stts: the commonest delta decides, not the track duration an edit list or composition offset stretches", () => {
    // 30 fps at timescale 15360: 7 samples of 512 ticks, 1 of 1024 (a gap); mdhd would say 0.35 s.
    const body = new Uint8Array(8 + 2 * 8);
    const view = new DataView(body.buffer);
    view.setUint32(4, 2);
    view.setUint32(8, 7); view.setUint32(12, 512);
    view.setUint32(16, 1); view.setUint32(20, 1024);
    expect(sttsRate(body, { type: "stts", start: 0, end: body.length }, 15360, 0.35)).toEqual({ samples: 8, fps: 30 });
    // No majority delta (variable rate): the table's own average, 8 samples over 6144 ticks.
    view.setUint32(8, 4); view.setUint32(16, 4);
    expect(sttsRate(body, { type: "stts", start: 0, end: body.length }, 15360, 0.35).fps).toBeCloseTo(8 / (6144 / 15360), 6);
  });
});
