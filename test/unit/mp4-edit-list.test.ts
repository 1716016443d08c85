// MP4 edit lists at the edge, on files ffmpeg makes (testkit/edit-list-fixtures.ts): each is checked against
// ffprobe: the file's duration against format.duration (or, without one, the span of ffprobe's streams), each
// track's against the stream's.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RangeByteSource } from "../../worker/bytes/byte-source.ts";
import type { FetchPolicy } from "../../worker/fetch/index.ts";
import { readMp4 } from "../../worker/probe/mp4-boxes.ts";
import { editSpan, readEditList, tracksSpanSeconds } from "../../worker/probe/mp4-edit-list.ts";
import { editListFiles, ensureEditListFixtures } from "../../testkit/edit-list-fixtures.ts";

const dir = join(tmpdir(), "media-inspect-edit-lists");

interface Probe { format: { duration?: string }; streams: { codec_type: string; start_time?: string; duration?: string }[] }
const ffprobe = (file: string): Probe => JSON.parse(execFileSync(process.env.FFPROBE_PATH ?? "ffprobe", ["-v", "quiet", "-of", "json",
  "-show_format", "-show_streams", join(dir, file)]).toString("utf8")) as Probe;

function held(bytes: Uint8Array): RangeByteSource {
  const source = new RangeByteSource("http://127.0.0.1:9/unused", bytes.length, true, {} as FetchPolicy, 0, 1024);
  source.addSegment(0, bytes);
  return source;
}

const files = editListFiles;
beforeAll(() => { ensureEditListFixtures(dir); }, 60_000);

const seconds = (s: string | undefined) => (s === undefined ? undefined : Number(s));

describe("edit lists applied to MP4 durations", () => {
  it.each(Object.keys(files))("%s: the file's duration and each track's as ffprobe reads them", async (name) => {
    const facts = (await readMp4(held(new Uint8Array(readFileSync(join(dir, name))))))!;
    const ref = ffprobe(name);
    expect(facts.durationSeconds).toBeCloseTo(seconds(ref.format.duration)!, 2);
    for (const kind of ["video", "audio"] as const) {
      const stream = ref.streams.find((s) => s.codec_type === kind)!;
      const track = facts.tracks.find((t) => t.kind === kind)!;
      expect(track.durationSeconds).toBeCloseTo(seconds(stream.duration)!, 2);
      // A leading empty edit is the stream's start time (ffprobe's audio start also holds the AAC priming).
      if (name.startsWith("delayed")) expect(track.startSeconds).toBeCloseTo(seconds(stream.start_time)!, 1);
    }
  });

  it.each(Object.keys(files))("%s without a movie duration: the span of the edited tracks, where ffprobe's format says 0", async (name) => {
    const file = `no-mvhd-${name}`;
    const facts = (await readMp4(held(new Uint8Array(readFileSync(join(dir, file))))))!;
    const ref = ffprobe(file);
    expect(Number(ref.format.duration ?? 0)).toBe(0);
    const starts = ref.streams.map((s) => Number(s.start_time));
    const ends = ref.streams.map((s) => Number(s.start_time) + Number(s.duration));
    expect(facts.durationSeconds).toBeCloseTo(Math.max(...ends) - Math.min(...starts), 2);
    // Before edit lists were read, the media's 6 s (mdhd) was all there was to give.
    if (name.startsWith("cut")) expect(facts.durationSeconds).toBeLessThan(5);
  });
});

describe("the elst reader", () => {
  const elst = (version: 0 | 1, edits: [number, number][], declared = edits.length) => {
    const size = version ? 20 : 12;
    const b = new Uint8Array(8 + edits.length * size);
    const view = new DataView(b.buffer);
    b[0] = version;
    view.setUint32(4, declared);
    edits.forEach(([duration, mediaTime], i) => {
      const o = 8 + i * size;
      if (version) { view.setBigUint64(o, BigInt(duration)); view.setBigInt64(o + 8, BigInt(mediaTime)); view.setUint16(o + 16, 1); }
      else { view.setUint32(o, duration); view.setInt32(o + 4, mediaTime); view.setUint16(o + 8, 1); }
    });
    return b;
  };

  it("reads 32- and 64-bit lists; an empty edit delays the start, the others are what plays", () => {
    for (const v of [0, 1] as const) {
      const edits = readEditList(elst(v, [[2000, -1], [4700, 16640]]), 0, v ? 48 : 32);
      expect(edits).toEqual([{ segmentDuration: 2000, mediaTime: -1 }, { segmentDuration: 4700, mediaTime: 16640 }]);
      expect(editSpan(edits, 1000)).toEqual({ startSeconds: 2, presentedSeconds: 4.7 });
    }
  });

  it("a fragmented file's open edit (duration 0) gives a start but no length; a lying count stops at the box's end", () => {
    expect(editSpan(readEditList(elst(0, [[80, -1], [0, 1024]]), 0, 32), 1000)).toEqual({ startSeconds: 0.08 });
    const lying = elst(0, [[1000, 0]], 0xffffffff);
    expect(readEditList(lying, 0, lying.length)).toHaveLength(1);
    expect(readEditList(lying, 0, 4)).toEqual([]);
    expect(editSpan([], 1000)).toBeUndefined();
    expect(editSpan([{ segmentDuration: 1, mediaTime: 0 }], 0)).toBeUndefined();
  });

  it("the span of tracks runs from the earliest start to the latest end", () => {
    expect(tracksSpanSeconds([{ durationSeconds: 6, startSeconds: 2 }, { durationSeconds: 6.02, startSeconds: 1.98 }])).toBeCloseTo(6.02, 6);
    expect(tracksSpanSeconds([{}, { durationSeconds: 0 }])).toBeUndefined();
  });
});
