// Segment and animation recognisers on files ffmpeg makes (HLS fMP4, DASH WebM) and a hand-written FLC, then on
// seeded corruptions: each answers from fixed offsets or a bounded box walk, never throws.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { isMediaSegment, isWebmMediaSegment } from "../../worker/probe/fmp4-segment.ts";
import { isFlic, readFlic } from "../../worker/probe/flic-header.ts";
import { isInitSegment } from "../../media-runner/src/media/init-segment.ts";
import { sniffMime } from "../../worker/probe/sniff-mime.ts";
import { ensureLongtailAvFixtures } from "../../testkit/longtail-av-fixtures.ts";
import { corrupt } from "../../testkit/reliability/fuzz.ts";

const dir = join(tmpdir(), "media-inspect-segments");
const file = (name: string) => readFileSync(join(dir, name));

beforeAll(() => {
  ensureLongtailAvFixtures(dir);
  mkdirSync(join(dir, "dash"), { recursive: true });
  execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "fatal", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "4",
    "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-g", "25", "-f", "dash", "-dash_segment_type", "webm", "-seg_duration", "2",
    join(dir, "dash", "m.mpd")], { stdio: "pipe" });
}, 120_000);

describe("segments", () => {
  it("an HLS fMP4 media segment (styp, sidx, moof) is one; its init segment, a whole MP4 and a TS are not", async () => {
    expect(isMediaSegment(file("lt-media.m4s"))).toBe(true);
    expect(isMediaSegment(file("lt-init.mp4"))).toBe(false);
    expect(isMediaSegment(file("lt-rollover.ts"))).toBe(false);
    expect(await sniffMime(file("lt-media.m4s").subarray(0, 4100), undefined)).toBe("video/iso.segment");
  });

  it("the init segment (moov with mvex, nothing after it) is one for the runner's check; the file cut short is not", () => {
    const init = file("lt-init.mp4");
    expect(isInitSegment(init, init.length)).toBe(true);
    expect(isInitSegment(init, init.length + 1000)).toBe(false);
  });

  it("a DASH WebM chunk (one Cluster, no EBML header) is a WebM media segment; its init segment is not", async () => {
    const chunk = readFileSync(join(dir, "dash", "chunk-stream0-00001.webm"));
    expect(isWebmMediaSegment(chunk)).toBe(true);
    expect(isWebmMediaSegment(readFileSync(join(dir, "dash", "init-stream0.webm")))).toBe(false);
    expect(await sniffMime(chunk.subarray(0, 4100), undefined)).toBe("video/webm");
  });
});

describe("FLI/FLC", () => {
  it("the FLC header gives size, 25 fps (40 ms a frame) and 5 frames; ffprobe agrees on the rate", async () => {
    const flc = new Uint8Array(file("lt-anim.flc"));
    expect(await sniffMime(flc, undefined)).toBe("video/x-flic");
    expect(readFlic(flc)).toMatchObject({ video: 1, audio: 0, width: 96, height: 64, fps: 25, durationSeconds: 0.2, videoCodec: "flic" });
    const rate = execFileSync("ffprobe", ["-v", "quiet", "-show_entries", "stream=r_frame_rate", "-of", "csv=p=0", join(dir, "lt-anim.flc")]).toString().trim();
    expect(rate).toBe("25/1");
  });
});

describe("on damaged bytes", () => {
  it("500 seeded corruptions: no recogniser throws", () => {
    const sources = ["lt-media.m4s", "lt-init.mp4", "lt-anim.flc"].map(file);
    for (let seed = 1; seed <= 500; seed++) {
      const bytes = corrupt(sources[seed % sources.length]!, seed);
      expect(() => [isMediaSegment(bytes), isWebmMediaSegment(bytes), isFlic(bytes), readFlic(bytes), isInitSegment(bytes, bytes.length)]).not.toThrow();
    }
  });
});
