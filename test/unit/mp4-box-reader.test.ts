// The one MP4 box reader (shared/media/mp4-box-reader.ts) and its rules for hostile input, seen through both of
// its users: the edge's moov reader (readMp4) and the runner's keyframe index (selectKeyframes). An ffmpeg file's
// moov is rewritten: a box that overruns its parent, a size-0 box, a 64-bit size, boxes nested 100,000 deep and
// 100,000 children in one box. The edge reads what the walk gives and never throws; the runner reads exactly and
// refuses (Mp4IndexError) anything a complete walk would not give; both agree on the well-formed variants.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RangeByteSource } from "../../worker/bytes/byte-source.ts";
import type { FetchPolicy } from "../../worker/fetch/index.ts";
import { readMp4 } from "../../worker/probe/mp4-boxes.ts";
import { Mp4IndexError, selectKeyframes } from "../../media-runner/src/media/mp4-keyframes.ts";
import { exactMp4Boxes, Mp4BoxError, mp4Boxes, mp4Child, readBoxHeader, type Mp4Parent } from "../../shared/media/mp4-box-reader.ts";
import { mp4MaxBoxDepth, mp4MaxChildBoxes } from "../../shared/limits.ts";

const dir = join(tmpdir(), "media-inspect-mp4-box-reader");

function box(type: string, ...parts: Uint8Array[]): Buffer {
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length);
  header.write(type, 4, "latin1");
  return Buffer.concat([header, body]);
}

/** `levels` udta boxes, each the only child of the one before it (written in place: 8 bytes a level). */
function nested(levels: number): Buffer {
  const out = Buffer.alloc(8 * levels);
  for (let i = 0; i < levels; i++) {
    out.writeUInt32BE(out.length - 8 * i, 8 * i);
    out.write("udta", 8 * i + 4, "latin1");
  }
  return out;
}

/** Top-level boxes of a file ffmpeg wrote (trusted: the test's own input). */
function split(bytes: Buffer, start = 0, end = bytes.length): { type: string; bytes: Buffer }[] {
  const out: { type: string; bytes: Buffer }[] = [];
  for (let at = start; at + 8 <= end;) {
    const size = bytes.readUInt32BE(at);
    out.push({ type: bytes.toString("latin1", at + 4, at + 8), bytes: bytes.subarray(at, at + size) });
    at += size;
  }
  return out;
}

let file: Buffer;
/** The file's boxes before its moov (ffmpeg writes the moov last without faststart: rewriting it moves no sample). */
let beforeMoov: Buffer;
let moovChildren: { type: string; bytes: Buffer }[];

/** The file with its moov made of these children (the trak's own bytes replaceable). */
function withMoov(children: Uint8Array[]): { file: Buffer; moov: Buffer } {
  const moov = box("moov", ...children);
  return { file: Buffer.concat([beforeMoov, moov]), moov };
}

const others = () => moovChildren.filter((c) => c.type !== "trak").map((c) => c.bytes);
const trak = () => moovChildren.find((c) => c.type === "trak")!.bytes;

function held(bytes: Uint8Array): RangeByteSource {
  const source = new RangeByteSource("http://127.0.0.1:9/unused", bytes.length, true, {} as FetchPolicy, 0, 1024);
  source.addSegment(0, bytes);
  return source;
}

const edge = async (f: Buffer) => (await readMp4(held(new Uint8Array(f))))!;
const runner = (moov: Buffer, f: Buffer) => selectKeyframes(moov, [0.5], f.length);

beforeAll(() => {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "plain.mp4");
  execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "fatal", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10",
    "-t", "2", "-c:v", "libx264", "-g", "5", "-pix_fmt", "yuv420p", path], { stdio: "pipe" });
  file = readFileSync(path);
  const top = split(file);
  const moovAt = file.indexOf(top.find((b) => b.type === "moov")!.bytes);
  expect(moovAt + top.find((b) => b.type === "moov")!.bytes.length).toBe(file.length);
  beforeMoov = file.subarray(0, moovAt);
  moovChildren = split(file, moovAt + 8, file.length);
}, 60_000);

describe("the shared reader's rules", () => {
  it("size 0 runs to the parent's end; size 1 reads a 64-bit size; a header smaller than itself is malformed", () => {
    const zero = Buffer.from([0, 0, 0, 0, 0x66, 0x72, 0x65, 0x65, 1, 2, 3]);
    expect(readBoxHeader(zero, 0, zero.length)).toEqual({ type: "free", size: 11, headerSize: 8 });
    const large = Buffer.alloc(16);
    large.writeUInt32BE(1);
    large.write("mdat", 4, "latin1");
    large.writeUInt32BE(2, 8);
    large.writeUInt32BE(5, 12);
    expect(readBoxHeader(large, 0, 2 ** 40)).toEqual({ type: "mdat", size: 2 * 2 ** 32 + 5, headerSize: 16 });
    expect(readBoxHeader(large.subarray(0, 12), 0, 2 ** 40)).toBeUndefined(); // the 64-bit size is not held
    const tiny = Buffer.from([0, 0, 0, 4, 0x66, 0x72, 0x65, 0x65]);
    expect(readBoxHeader(tiny, 0, 8)).toBeUndefined();
    const walk = mp4Boxes(tiny, { start: 0, end: 8 });
    expect(walk.next()).toEqual({ done: true, value: "malformed" });
  });

  it("a box that overruns its parent is cut at the parent's end, flagged, and ends the walk", () => {
    const parent = Buffer.concat([box("free"), box("trak", Buffer.alloc(8))]);
    parent.writeUInt32BE(0x7fffffff, 8);
    const seen = [...mp4Boxes(parent, { start: 0, end: parent.length })];
    expect(seen.map((b) => [b.type, b.end, b.overruns])).toEqual([["free", 8, false], ["trak", parent.length, true]]);
    const walk = mp4Boxes(parent, { start: 0, end: parent.length });
    let step = walk.next();
    while (!step.done) step = walk.next();
    expect(step.value).toBe("overrun");
    expect(() => [...exactMp4Boxes(parent, { start: 0, end: parent.length })]).toThrow(Mp4BoxError);
  });

  it(`children past ${mp4MaxChildBoxes} and nesting past ${mp4MaxBoxDepth} end the walk`, () => {
    const many = Buffer.concat(Array.from({ length: 100_000 }, () => box("free")));
    const walk = mp4Boxes(many, { start: 0, end: many.length });
    let count = 0;
    let step = walk.next();
    for (; !step.done; step = walk.next()) count++;
    expect([count, step.value]).toEqual([mp4MaxChildBoxes, "too-many-children"]);

    const deep = nested(100_000);
    let at: Mp4Parent = { start: 0, end: deep.length };
    let depth = 0;
    for (let next = mp4Child(deep, at, "udta"); next; next = mp4Child(deep, at, "udta")) { at = next; depth = next.depth; }
    expect(depth).toBe(mp4MaxBoxDepth);
    expect(() => mp4Child(deep, at, "udta", { exact: true })).toThrow(/nested too deep/);
  });
});

describe("through both sides' entry points", { timeout: 30_000 }, () => {
  it("the honest file: the edge's track and the runner's keyframe", async () => {
    const { file: f, moov } = withMoov([...others(), trak()]);
    expect((await edge(f)).tracks[0]).toMatchObject({ kind: "video", codec: "h264", width: 160, height: 120 });
    expect(runner(moov, f)?.keyframes.length).toBe(1);
  });

  it("a trak whose size overruns the moov: the edge reads it up to the moov's end, the runner refuses it", async () => {
    const lying = Buffer.from(trak());
    lying.writeUInt32BE(0x7fffffff);
    const { file: f, moov } = withMoov([...others(), lying]);
    expect((await edge(f)).tracks[0]).toMatchObject({ kind: "video", codec: "h264", width: 160, height: 120 });
    expect(() => runner(moov, f)).toThrow(Mp4IndexError);
  });

  it("a last trak of size 0 and a trak with a 64-bit size: both sides read them as the honest file", async () => {
    const honest = withMoov([...others(), trak()]);
    const expected = { edge: (await edge(honest.file)).tracks, runner: runner(honest.moov, honest.file)?.keyframes };
    const zero = Buffer.from(trak());
    zero.writeUInt32BE(0);
    const large = Buffer.concat([Buffer.from([0, 0, 0, 1, ...Buffer.from("trak", "latin1"), 0, 0, 0, 0]), Buffer.alloc(4), trak().subarray(8)]);
    large.writeUInt32BE(trak().length + 8, 12);
    for (const variant of [withMoov([...others(), zero]), withMoov([...others(), large])]) {
      expect((await edge(variant.file)).tracks).toEqual(expected.edge);
      // The keyframe's byte range is in the mdat, before the moov: unchanged.
      expect(runner(variant.moov, variant.file)?.keyframes).toEqual(expected.runner);
    }
  });

  it("boxes nested 100,000 deep before the trak: both sides read the track, neither descends", async () => {
    const deep = nested(100_000);
    const { file: f, moov } = withMoov([...others(), deep, trak()]);
    expect((await edge(f)).tracks[0]).toMatchObject({ kind: "video", width: 160, height: 120 });
    expect(runner(moov, f)?.keyframes.length).toBe(1);
  });

  it("100,000 empty boxes before the trak: both walks stop at the children cap; the edge finds no track, the runner refuses", async () => {
    const free = Array.from({ length: 100_000 }, () => box("free"));
    const { file: f, moov } = withMoov([...others(), ...free, trak()]);
    expect((await edge(f)).tracks).toEqual([]);
    expect(() => runner(moov, f)).toThrow(/too many boxes/);
  });
});
