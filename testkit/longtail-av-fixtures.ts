/**
 * Streaming segments and animations as packagers and old tools write them, made at set-up with ffmpeg (FLC
 * written here from Autodesk's layout: ffmpeg decodes FLIC but has no encoder): an MPEG-TS whose clock rolls
 * over 2^33, one cut before its first keyframe, an fMP4 initialization segment and one media segment.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeMissing } from "./make-missing.ts";

export const longtailAvFiles = ["lt-rollover.ts", "lt-before-keyframe.ts", "lt-init.mp4", "lt-media.m4s", "lt-anim.flc"] as const;

const ffmpeg = (args: string[]) => execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", ...args], { stdio: ["ignore", "ignore", "pipe"] });
const picture = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "4"];
const tone = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "4"];
const x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "50"];

/** A 96x64 FLC (magic 0xAF12) of `frames` frames at 40 ms: a 256-colour palette, then one byte-run frame, then empty deltas. */
export function writeFlc(frames = 5): Buffer {
  const width = 96;
  const height = 64;
  const chunk = (type: number, data: Buffer) => {
    const header = Buffer.alloc(6);
    header.writeUInt32LE(6 + data.length, 0);
    header.writeUInt16LE(type, 4);
    return Buffer.concat([header, data]);
  };
  const palette = Buffer.alloc(4 + 768);
  palette.writeUInt16LE(1, 0); // one packet: skip 0, count 0 (= 256 colours)
  palette.set([208, 48, 48], 4 + 3);
  palette.set([32, 80, 192], 4 + 6);
  const rows: number[] = [];
  for (let y = 0; y < height; y++) rows.push(2, 67, 1, width - 67, 2); // two runs: 67 of colour 1, 29 of colour 2
  const frame = (subs: Buffer[]) => {
    const header = Buffer.alloc(16);
    const body = Buffer.concat(subs);
    header.writeUInt32LE(16 + body.length, 0);
    header.writeUInt16LE(0xf1fa, 4);
    header.writeUInt16LE(subs.length, 6);
    return Buffer.concat([header, body]);
  };
  const body = Buffer.concat([frame([chunk(4, palette), chunk(15, Buffer.from(rows))]), ...Array.from({ length: frames - 1 }, () => frame([]))]);
  const header = Buffer.alloc(128);
  header.writeUInt32LE(128 + body.length, 0);
  header.writeUInt16LE(0xaf12, 4);
  header.writeUInt16LE(frames, 6);
  header.writeUInt16LE(width, 8);
  header.writeUInt16LE(height, 10);
  header.writeUInt16LE(8, 12); // depth
  header.writeUInt16LE(3, 14); // flags
  header.writeUInt32LE(40, 16); // ms per frame
  return Buffer.concat([header, body]);
}

const makers: Record<(typeof longtailAvFiles)[number], (out: string, work: string) => void> = {
  "lt-rollover.ts": (out) => ffmpeg([...picture, ...tone, ...x264, "-c:a", "aac", "-output_ts_offset", String(Math.floor(2 ** 33 / 90000) - 2), "-f", "mpegts", out]),
  "lt-before-keyframe.ts": (out) => {
    ffmpeg([...picture, ...tone, ...x264, "-c:a", "aac", "-f", "mpegts", `${out}.whole`]);
    const whole = readFileSync(`${out}.whole`);
    writeFileSync(out, whole.subarray(Math.floor(whole.length / 188 / 3) * 188));
    rmSync(`${out}.whole`);
  },
  "lt-init.mp4": (out, work) => {
    hlsFmp4(work);
    writeFileSync(out, readFileSync(join(work, "init.mp4")));
  },
  "lt-media.m4s": (out, work) => {
    hlsFmp4(work);
    writeFileSync(out, readFileSync(join(work, "seg1.m4s")));
  },
  "lt-anim.flc": (out) => writeFileSync(out, writeFlc()),
};

/** An HLS fMP4 rendition in `work`: init.mp4 and seg0..seg2.m4s of 2 s each. */
function hlsFmp4(work: string): void {
  if (existsSync(join(work, "seg1.m4s"))) return;
  mkdirSync(work, { recursive: true });
  ffmpeg([...picture, ...tone, ...x264, "-c:a", "aac", "-f", "hls", "-hls_time", "2", "-hls_segment_type", "fmp4",
    "-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename", join(work, "seg%d.m4s"), "-hls_playlist_type", "vod", join(work, "index.m3u8")]);
}

/** Writes the missing files into dir (each written whole under another name, then renamed). */
export function ensureLongtailAvFixtures(dir: string): string {
  const work = join(dir, "work-hls");
  return makeMissing(dir, longtailAvFiles, (file, partial) => makers[file](partial, work));
}
