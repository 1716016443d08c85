/**
 * The storyboard's MP4 sample-table reader (media-runner/src/media/mp4-keyframes.ts) and its request planner:
 * keyframe offsets and sizes agree with ffprobe's packets, the nearest keyframe is picked for each time, and
 * hostile tables (counts larger than their boxes, boxes past their parent, unordered stss) are refused with
 * Mp4IndexError instead of being read out of bounds.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Mp4IndexError, selectKeyframes } from "../../media-runner/src/media/mp4-keyframes.ts";
import { annexBAccessUnit, parameterSets } from "../../media-runner/src/media/mp4-annexb.ts";
import { planRanges } from "../../media-runner/src/media/storyboard.ts";

const dir = join(import.meta.dirname, "..", ".fixtures", "storyboard-keyframes");
const fixtures: Record<string, string[]> = {
  // 6 s, keyframes at 0, 1.2, 2.4... (-g 30 at 25 fps), B-frames (ctts and an edit list), audio interleaved.
  "gop.mp4": ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "6",
    "-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "30", "-sc_threshold", "0", "-pix_fmt", "yuv420p", "-c:a", "aac", "-f", "mp4"],
};

beforeAll(() => {
  mkdirSync(dir, { recursive: true });
  for (const [name, args] of Object.entries(fixtures)) {
    const path = join(dir, name);
    if (existsSync(path)) continue;
    execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args, `${path}.partial`]);
    renameSync(`${path}.partial`, path);
  }
});

function moovOf(file: Buffer): Buffer {
  for (let pos = 0; pos + 8 <= file.length;) {
    const size = file.readUInt32BE(pos);
    if (file.toString("latin1", pos + 4, pos + 8) === "moov") return Buffer.from(file.subarray(pos, pos + size));
    pos += size;
  }
  throw new Error("no moov");
}

/** ffprobe's video keyframes: presentation time, byte position and size. */
function ffprobeKeyframes(path: string): Array<{ time: number; offset: number; size: number }> {
  const csv = execFileSync("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,pos,size,flags", "-of", "csv=p=0", path], { encoding: "utf8" });
  return csv.trim().split("\n").map((line) => line.split(",")).filter((f) => f[3]?.startsWith("K"))
    .map(([time, size, pos]) => ({ time: Number(time), offset: Number(pos), size: Number(size) }));
}

/** Offset of a box type inside the moov (the first one). */
function boxAt(moov: Buffer, type: string): number {
  const at = moov.indexOf(type, 0, "latin1") - 4;
  if (at < 0) throw new Error(`no ${type}`);
  return at;
}

describe("MP4 keyframes from the sample tables", () => {
  it("agree with ffprobe's keyframe packets: time, offset and size; each time takes the nearest", () => {
    const path = join(dir, "gop.mp4");
    const file = readFileSync(path);
    const expected = ffprobeKeyframes(path);
    expect(expected.length).toBeGreaterThanOrEqual(5);
    const times = [0, 0.5, 0.7, 1.2, 3, 5.9];
    const selection = selectKeyframes(moovOf(file), times, file.length)!;
    expect(selection.codec).toBe("h264");
    for (const k of selection.keyframes) {
      const match = expected.find((e) => e.offset === k.offset);
      expect(match, `keyframe at ${k.offset}`).toBeDefined();
      expect(k.size).toBe(match!.size);
      expect(k.time).toBeCloseTo(match!.time, 3);
    }
    const nearest = (t: number) => expected.reduce((best, e) => (Math.abs(e.time - t) < Math.abs(best.time - t) ? e : best));
    selection.pick.forEach((index, i) => expect(selection.keyframes[index]!.offset).toBe(nearest(times[i]!).offset));
    // The picked bytes are whole access units: as Annex B they start with the delimiter and the parameter sets.
    const params = parameterSets("h264", selection.config);
    expect(params.nals.length).toBe(2);
    const first = selection.keyframes[0]!;
    const unit = Buffer.concat(annexBAccessUnit("h264", params, file.subarray(first.offset, first.offset + first.size)));
    expect(unit.subarray(0, 6)).toEqual(Buffer.from([0, 0, 0, 1, 0x09, 0xf0]));
  });

  it("refuses tables that declare more than their boxes hold, boxes past their parent and unordered stss", () => {
    const moov = moovOf(readFileSync(join(dir, "gop.mp4")));
    const broken = (edit: (m: Buffer) => void) => {
      const copy = Buffer.from(moov);
      edit(copy);
      return () => selectKeyframes(copy, [0, 1, 2], undefined);
    };
    // Entry counts (after version/flags) far beyond the box.
    expect(broken((m) => m.writeUInt32BE(0xffffffff, boxAt(m, "stss") + 12))).toThrow(Mp4IndexError);
    expect(broken((m) => m.writeUInt32BE(0x7fffffff, boxAt(m, "stco") + 12))).toThrow(Mp4IndexError);
    expect(broken((m) => m.writeUInt32BE(0x7fffffff, boxAt(m, "stts") + 12))).toThrow(Mp4IndexError);
    expect(broken((m) => m.writeUInt32BE(0x7fffffff, boxAt(m, "stsz") + 16))).toThrow(Mp4IndexError);
    // A trak larger than the moov.
    expect(broken((m) => m.writeUInt32BE(0x7fffffff, boxAt(m, "trak")))).toThrow(Mp4IndexError);
    // stss entries out of order (the second made 1).
    expect(broken((m) => m.writeUInt32BE(1, boxAt(m, "stss") + 20))).toThrow(Mp4IndexError);
    // A chunk offset past the file.
    expect(() => selectKeyframes(moov, [5], 1000)).toThrow(Mp4IndexError);
  });

  it("no video track it decodes: undefined (the general path takes the file)", () => {
    const moov = Buffer.from(moovOf(readFileSync(join(dir, "gop.mp4"))));
    const entry = moov.indexOf("avc1", 0, "latin1");
    moov.write("mp4v", entry, "latin1");
    expect(selectKeyframes(moov, [0], undefined)).toBeUndefined();
  });
});

describe("keyframe request plan", () => {
  it("joins ranges closer than the gap, then the closest neighbours down to the request cap", () => {
    const ranges = [{ start: 1000, end: 1999 }, { start: 0, end: 99 }, { start: 2010, end: 2999 }, { start: 10_000, end: 10_999 }, { start: 5000, end: 5999 }];
    expect(planRanges(ranges, 16, 10)).toEqual([{ start: 0, end: 99 }, { start: 1000, end: 2999 }, { start: 5000, end: 5999 }, { start: 10_000, end: 10_999 }]);
    // Cap 2: the gaps 900 (0-99 to 1000) and 2000 (2999 to 5000) go first.
    expect(planRanges(ranges, 16, 2)).toEqual([{ start: 0, end: 5999 }, { start: 10_000, end: 10_999 }]);
    expect(planRanges(ranges, 16, 0)).toEqual([{ start: 0, end: 10_999 }]);
    expect(planRanges([], 16, 4)).toEqual([]);
  });
});
