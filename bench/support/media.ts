/**
 * The bench's media files, made once with ffmpeg into .tmp/bench-media (gitignored) and reused. Sizes are
 * the realistic ones the issue names; contents are synthetic (testsrc2, noise) so that they compress like
 * camera footage rather than like a flat colour.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export type BenchKind = "video" | "audio" | "image";

export interface BenchFile {
  name: string;
  kind: BenchKind;
  /** What the row says about the file. */
  label: string;
  args: string[];
  /** Second pass: remux the first output (e.g. moov moved to the front). */
  remux?: { from: string; args: string[] };
  /**
   * The physical limit in sequential round trips on a first visit over plain TCP (bench --rtt): a handshake and
   * a first read (with a suffix read sent alongside where facts may sit at the end) = 2; one more where the
   * head only tells where the facts are (a moov after the mdat or larger than the first read, an IFD at its
   * offset); `full` adds one read of the frame's bytes for video and images.
   */
  roundTrips: { fast: number; full: number };
}

const h264 = (seconds: number, size: string, videoBitrate: string) => [
  "-f", "lavfi", "-i", `testsrc2=size=${size}:rate=30:duration=${seconds}`,
  "-f", "lavfi", "-i", `sine=frequency=440:sample_rate=48000:duration=${seconds}`,
  // 2 s GOPs, as web and streaming encodes use.
  "-c:v", "libx264", "-preset", "veryfast", "-g", "60", "-b:v", videoBitrate, "-maxrate", videoBitrate, "-bufsize", videoBitrate,
  "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-shortest",
];

export const benchFiles: BenchFile[] = [
  { name: "h264-5mb-moov-end.mp4", roundTrips: { fast: 3, full: 4 }, kind: "video", label: "H.264 720p 20 s, 5 MB, moov last", args: h264(20, "1280x720", "1900k") },
  { name: "h264-5mb-faststart.mp4", roundTrips: { fast: 2, full: 3 }, kind: "video", label: "H.264 720p 20 s, 5 MB, moov first", args: [],
    remux: { from: "h264-5mb-moov-end.mp4", args: ["-c", "copy", "-movflags", "+faststart"] } },
  { name: "h264-30mb-moov-end.mp4", roundTrips: { fast: 3, full: 4 }, kind: "video", label: "H.264 1080p 60 s, 30 MB, moov last", args: h264(60, "1920x1080", "3900k") },
  { name: "h264-30mb-faststart.mp4", roundTrips: { fast: 3, full: 4 }, kind: "video", label: "H.264 1080p 60 s, 30 MB, moov first", args: [],
    remux: { from: "h264-30mb-moov-end.mp4", args: ["-c", "copy", "-movflags", "+faststart"] } },
  { name: "screen-recording.webm", roundTrips: { fast: 2, full: 3 }, kind: "video", label: "WebM VP8 720p 30 s, live-style (no Cues, no Duration)", args: [
    "-f", "lavfi", "-i", "testsrc=size=1280x720:rate=30:duration=30",
    "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000:duration=30",
    "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "1200k", "-c:a", "libopus", "-b:a", "64k",
    "-f", "webm", "-live", "1"] },
  { name: "album-track.flac", roundTrips: { fast: 2, full: 2 }, kind: "audio", label: "FLAC 44.1 kHz stereo, 10 MB, tagged", args: [
    "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.25:seed=1:sample_rate=44100:duration=45",
    "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.25:seed=2:sample_rate=44100:duration=45",
    "-filter_complex", "[0][1]amerge=inputs=2", "-c:a", "flac", "-metadata", "title=Bench Track", "-metadata", "artist=Bench Artist",
    "-metadata", "album=Bench Album"] },
  { name: "podcast.mp3", roundTrips: { fast: 2, full: 2 }, kind: "audio", label: "MP3 192 kb/s, 5 MB, ID3v2", args: [
    "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.2:seed=3:sample_rate=44100:duration=210",
    "-c:a", "libmp3lame", "-b:a", "192k", "-metadata", "title=Bench Episode", "-metadata", "artist=Bench Show"] },
  { name: "photo-12mp.jpg", roundTrips: { fast: 2, full: 3 }, kind: "image", label: "JPEG 4000x3000 (12 MP)", args: [
    "-f", "lavfi", "-i", "testsrc2=size=4000x3000", "-vf", "noise=alls=12:allf=u", "-frames:v", "1", "-q:v", "3"] },
  { name: "scan-4mb.tif", roundTrips: { fast: 3, full: 4 }, kind: "image", label: "TIFF 1280x1040 RGB, 4 MB", args: [
    "-f", "lavfi", "-i", "testsrc2=size=1280x1040", "-frames:v", "1", "-pix_fmt", "rgb24", "-compression_algo", "raw"] },
];

/** Makes the missing files among `files` (and what they are remuxed from); returns the folder. */
export async function ensureBenchMedia(dir: string, files: BenchFile[], log: (line: string) => void): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const ffmpeg = process.env.FFMPEG_PATH ?? "ffmpeg";
  const wanted = new Set(files.flatMap((f) => [f.name, ...(f.remux ? [f.remux.from] : [])]));
  for (const file of benchFiles.filter((f) => wanted.has(f.name))) {
    const out = join(dir, file.name);
    if (existsSync(out)) continue;
    log(`generating ${file.name} (once; cached in ${dir})`);
    const tmp = join(dir, `.partial-${file.name}`);
    const input = file.remux ? ["-i", join(dir, file.remux.from), ...file.remux.args] : file.args;
    await run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", ...input, tmp], { maxBuffer: 1 << 20 });
    renameSync(tmp, out);
  }
  return dir;
}

export const fileSize = (dir: string, name: string) => statSync(join(dir, name)).size;
