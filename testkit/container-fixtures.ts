/**
 * one small file per container class `fast` reads from headers, made at set-up, and ffprobe's
 * reading of each (the reference). ffmpeg makes all of them except AMR: Debian's ffmpeg 5.1 has no AMR encoder
 * (no libopencore/vo-amrwbenc), so the two AMR files are written here from RFC 4867's storage format (the magic
 * line, then frames of one toc byte and a fixed-size payload per mode); ffmpeg's native decoders read them. The
 * fragmented MP4 "with mehd" is ffmpeg's own (it writes no mehd) with a mehd box put into its mvex and the mfra
 * index cut off, the offsets kept valid by default-base-is-moof.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ffprobeJson } from "./ffprobe-reference.ts";
import { makeMissing } from "./make-missing.ts";

export interface ContainerReference {
  /** ffprobe's format duration (seconds). */
  duration?: number;
  /** The end of the last packet (seconds): the truth when ffprobe's duration is a bitrate estimate. */
  packetsEnd?: number;
  /** r_frame_rate of the first video stream. */
  fps?: number;
  width?: number;
  height?: number;
  sampleRate?: number;
}

export interface ContainerFixture {
  file: string;
  category: "video" | "audio" | "image";
  /** The facts `fast` must give from the header, compared with `full` and ffprobe. */
  facts: ("duration" | "fps" | "dimensions" | "sampleRate")[];
  /** ffprobe estimates this class's duration from a nominal bitrate: the packets' end is the truth to score against. */
  durationFromPackets?: boolean;
}

export const containerFixtures: ContainerFixture[] = [
  { file: "ps-av.mpg", category: "video", facts: ["duration", "fps", "dimensions"] },
  { file: "ps-audio.mpg", category: "audio", facts: ["duration", "sampleRate"] },
  { file: "speech-nb.amr", category: "audio", facts: ["duration", "sampleRate"], durationFromPackets: true },
  { file: "speech-wb.amr", category: "audio", facts: ["duration", "sampleRate"], durationFromPackets: true },
  { file: "clip.avi", category: "video", facts: ["duration", "fps", "dimensions"] },
  { file: "clip.flv", category: "video", facts: ["duration", "fps", "dimensions"] },
  { file: "tone.aac", category: "audio", facts: ["duration", "sampleRate"] },
  { file: "tone.ac3", category: "audio", facts: ["duration", "sampleRate"] },
  { file: "tone.eac3", category: "audio", facts: ["duration", "sampleRate"] },
  { file: "tone-rf64.wav", category: "audio", facts: ["duration", "sampleRate"] },
  { file: "frag-no-mehd.mp4", category: "video", facts: ["duration", "fps", "dimensions"] },
  { file: "frag-mehd.mp4", category: "video", facts: ["duration", "fps", "dimensions"] },
  { file: "ts-audio.ts", category: "audio", facts: ["duration", "sampleRate"] },
  { file: "ts-video.ts", category: "video", facts: ["duration", "fps", "dimensions"] },
  { file: "still.jp2", category: "image", facts: ["dimensions"] },
  { file: "still.j2c", category: "image", facts: ["dimensions"] },
  { file: "still.pgm", category: "image", facts: ["dimensions"] },
  { file: "still.ppm", category: "image", facts: ["dimensions"] },
  { file: "still.pam", category: "image", facts: ["dimensions"] },
];

const tone = (rate: number, ac = 2) => ["-f", "lavfi", "-i", `sine=frequency=440:sample_rate=${rate}`, "-t", "4", "-ac", String(ac)];
const picture = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "3"];
const still = ["-f", "lavfi", "-i", "testsrc2=size=96x64", "-frames:v", "1"];
const h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "25"];

const ffmpegArgs: Record<string, string[]> = {
  "ps-av.mpg": [...picture, ...tone(48000), "-c:v", "mpeg2video", "-c:a", "mp2", "-f", "vob"],
  "ps-audio.mpg": [...tone(48000), "-c:a", "mp2", "-f", "mpeg"],
  "clip.avi": [...picture, ...tone(48000), "-c:v", "mpeg4", "-c:a", "mp2", "-f", "avi"],
  "clip.flv": [...picture, ...tone(44100), "-c:v", "flv1", "-c:a", "libmp3lame", "-f", "flv"],
  "tone.aac": [...tone(44100), "-c:a", "aac", "-f", "adts"],
  "tone.ac3": [...tone(48000), "-c:a", "ac3", "-f", "ac3"],
  "tone.eac3": [...tone(48000), "-c:a", "eac3", "-f", "eac3"],
  "tone-rf64.wav": [...tone(48000), "-c:a", "pcm_s16le", "-rf64", "always", "-f", "wav"],
  "frag-no-mehd.mp4": [...picture, ...h264, "-movflags", "frag_keyframe+empty_moov", "-f", "mp4"],
  "ts-audio.ts": [...tone(48000), "-c:a", "mp2", "-f", "mpegts"],
  "ts-video.ts": [...picture, ...tone(48000), ...h264, "-c:a", "aac", "-f", "mpegts"],
  "still.jp2": [...still, "-c:v", "jpeg2000", "-f", "image2"],
  "still.j2c": [...still, "-c:v", "jpeg2000", "-format", "j2k", "-f", "image2"],
  "still.pgm": [...still, "-pix_fmt", "gray", "-f", "image2"],
  "still.ppm": [...still, "-f", "image2"],
  "still.pam": [...still, "-pix_fmt", "rgba", "-c:v", "pam", "-f", "image2"],
};

const ffmpeg = (args: string[], out: string) => execFileSync(process.env.FFMPEG_PATH ?? "ffmpeg", ["-loglevel", "error", "-y", ...args, out]);

/** RFC 4867 5.3 frame sizes (toc byte included) of AMR-NB modes 0-7 and AMR-WB modes 0-8. */
const amrSizes = { nb: [13, 14, 16, 18, 20, 21, 27, 32], wb: [18, 24, 33, 37, 41, 47, 51, 59, 61] };

/** 200 frames (4 s) of one mode; payload bytes from a fixed linear congruential sequence (any bits decode). */
function writeAmr(out: string, kind: "nb" | "wb", mode: number): void {
  const magic = Buffer.from(kind === "nb" ? "#!AMR\n" : "#!AMR-WB\n", "latin1");
  const size = amrSizes[kind][mode]!;
  const frames = Buffer.alloc(200 * size);
  let seed = 12345;
  for (let f = 0; f < 200; f++) {
    frames[f * size] = (mode << 3) | 0x04; // frame type, quality bit set
    for (let i = 1; i < size; i++) { seed = (seed * 1103515245 + 12345) >>> 0; frames[f * size + i] = seed >>> 24; }
  }
  writeFileSync(out, Buffer.concat([magic, frames]));
}

/** ffmpeg's fragmented MP4 with a mehd (fragment_duration = the movie's length) in mvex, the mfra cut off. */
function writeFragmentedWithMehd(out: string, dir: string): void {
  const plain = join(dir, "partial-frag-base.mp4");
  ffmpeg([...picture, ...h264, "-movflags", "frag_keyframe+empty_moov+default_base_moof", "-f", "mp4"], plain);
  const b = readFileSync(plain);
  const boxes: { type: string; start: number; size: number }[] = [];
  for (let o = 0; o + 8 <= b.length; o += b.readUInt32BE(o)) boxes.push({ type: b.toString("latin1", o + 4, o + 8), start: o, size: b.readUInt32BE(o) });
  const moov = boxes.find((x) => x.type === "moov")!;
  let mvex = -1;
  for (let o = moov.start + 8; o < moov.start + moov.size; o += b.readUInt32BE(o)) if (b.toString("latin1", o + 4, o + 8) === "mvex") mvex = o;
  const mvhd = moov.start + 8;
  const timescale = b.readUInt32BE(mvhd + 8 + 12);
  const mehd = Buffer.alloc(16);
  mehd.writeUInt32BE(16, 0);
  mehd.write("mehd", 4, "latin1");
  mehd.writeUInt32BE(3 * timescale, 12); // version 0: 32-bit fragment_duration
  const head = Buffer.from(b.subarray(0, mvex + 8));
  head.writeUInt32BE(moov.size + 16, moov.start);
  head.writeUInt32BE(b.readUInt32BE(mvex) + 16, mvex);
  const end = boxes.find((x) => x.type === "mfra")?.start ?? b.length;
  writeFileSync(out, Buffer.concat([head, mehd, b.subarray(mvex + 8, end)]));
}

export function ensureContainerFixtures(dir: string): string {
  makeMissing(dir, containerFixtures.map(({ file }) => file), (file, partial) => {
    if (file === "speech-nb.amr") writeAmr(partial, "nb", 7);
    else if (file === "speech-wb.amr") writeAmr(partial, "wb", 8);
    else if (file === "frag-mehd.mp4") writeFragmentedWithMehd(partial, dir);
    else ffmpeg(ffmpegArgs[file]!, partial);
  });
  return dir;
}

const ratio = (r: string | undefined) => { const [n, d] = (r ?? "").split("/").map(Number); return n && d ? n / d : undefined; };

/** ffprobe's reading of one fixture: format duration, the packets' end, r_frame_rate, size, sample rate. */
export async function containerReference(dir: string, file: string): Promise<ContainerReference> {
  const run = (args: string[]) => ffprobeJson(join(dir, file), args);
  const probe = await run(["-show_format", "-show_streams"]) as { format: { duration?: string };
    streams: { codec_type: string; width?: number; height?: number; r_frame_rate?: string; sample_rate?: string }[] };
  const video = probe.streams.find((s) => s.codec_type === "video");
  const audio = probe.streams.find((s) => s.codec_type === "audio");
  const out: ContainerReference = {};
  const duration = Number(probe.format.duration);
  if (Number.isFinite(duration) && duration > 0 && !file.startsWith("still.")) out.duration = duration;
  if (file.endsWith(".amr")) {
    const packets = await run(["-show_entries", "packet=pts_time,duration_time"]) as { packets: { pts_time?: string; duration_time?: string }[] };
    out.packetsEnd = Math.max(0, ...packets.packets.map((p) => Number(p.pts_time ?? 0) + Number(p.duration_time ?? 0)));
  }
  if (video?.width && !file.startsWith("still.")) out.fps = ratio(video.r_frame_rate);
  if (video?.width) { out.width = video.width; out.height = video.height; }
  if (audio?.sample_rate && !video) out.sampleRate = Number(audio.sample_rate);
  return out;
}
