// An H.264 transport stream whose SEI carry caption constructs someone else captured: mux.js ships CEA-608/708
// cc_data from real broadcasts as lists of { type, ccData } (test/utils/*.js), which its own tests wrap in SEI. Here
// each group of constructs sharing a PTS becomes the A/53 cc_data of one access unit of an ffmpeg-made clip, so the
// caption bytes are the broadcaster's and the stream around them is made here.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";

const ffmpeg = process.env.FFMPEG_PATH ?? "ffmpeg";

export interface CaptionPacket { type: number; pts: number; ccData: number; presortIndex?: number }

/** mux.js's captured constructs (`name` is a module under mux.js/test/utils), in stream order. */
export function muxCaptionPackets(repoRoot: string, name: string): CaptionPacket[] {
  const packets = createRequire(join(repoRoot, "package.json"))(`mux.js/test/utils/${name}.js`) as CaptionPacket[];
  return [...packets].sort((a, b) => a.pts - b.pts || (a.presortIndex ?? 0) - (b.presortIndex ?? 0));
}

/** The constructs grouped by PTS (a cc_data holds at most 31). */
function groups(packets: readonly CaptionPacket[]): CaptionPacket[][] {
  const out: CaptionPacket[][] = [];
  for (const p of packets) {
    const last = out.at(-1);
    if (last && last[0]!.pts === p.pts && last.length < 31) last.push(p);
    else out.push([p]);
  }
  return out;
}

/** One SEI NAL unit (with emulation prevention) holding an ATSC A/53 cc_data of `group`. */
export function captionSei(group: readonly CaptionPacket[]): number[] {
  const payload = [0xb5, 0x00, 0x31, 0x47, 0x41, 0x39, 0x34, 0x03, 0x40 | group.length, 0xff];
  for (const p of group) payload.push(0xf8 | 0x04 | (p.type & 3), (p.ccData >> 8) & 0xff, p.ccData & 0xff);
  payload.push(0xff);
  const rbsp = [4];
  let size = payload.length;
  for (; size >= 255; size -= 255) rbsp.push(255);
  rbsp.push(size, ...payload, 0x80);
  const nal = [0x06];
  let zeros = 0;
  for (const byte of rbsp) {
    if (zeros >= 2 && byte <= 3) { nal.push(3); zeros = 0; }
    nal.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return [0, 0, 0, 1, ...nal];
}

/** An Annex B H.264 clip (one frame per group, no B-frames) with each group's SEI before its frame's first slice. */
export function captionedAnnexB(packets: readonly CaptionPacket[]): Uint8Array {
  const grouped = groups(packets);
  const annexB = execFileSync(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=30", "-frames:v", String(grouped.length),
    "-c:v", "libx264", "-bf", "0", "-bsf:v", "h264_mp4toannexb", "-f", "h264", "-"]);
  const starts: number[] = [];
  for (let i = annexB.indexOf(Buffer.from([0, 0, 1])); i >= 0; i = annexB.indexOf(Buffer.from([0, 0, 1]), i + 3)) starts.push(i);
  const out: number[] = [];
  let frame = 0;
  starts.forEach((s, n) => {
    let nal = annexB.subarray(s + 3, n + 1 < starts.length ? starts[n + 1] : annexB.length);
    while (nal.length > 0 && nal[nal.length - 1] === 0) nal = nal.subarray(0, nal.length - 1);
    const type = nal[0]! & 0x1f;
    // The first slice of each picture (first_mb_in_slice 0: the first bit after the header is 1).
    if ((type === 1 || type === 5) && (nal[1]! & 0x80) && frame < grouped.length) out.push(...captionSei(grouped[frame++]!));
    out.push(0, 0, 0, 1, ...nal);
  });
  return Uint8Array.from(out);
}

/** The clip in an MPEG-TS, written to `path` (ffmpeg copies the SEI as they are). */
export function writeCaptionedTs(packets: readonly CaptionPacket[], path: string, workDir: string): void {
  execFileSync(ffmpeg, ["-v", "error", "-y", "-fflags", "+genpts", "-r", "30", "-f", "h264", "-i", "pipe:0", "-c", "copy", "-f", "mpegts", path],
    { input: captionedAnnexB(packets), cwd: workDir });
}
