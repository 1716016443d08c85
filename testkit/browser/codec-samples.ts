import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";

/**
 * One short file per codec family the support table names, made with ffmpeg (1 s, 320x240 test pattern,
 * 440 Hz tone). HDR files carry PQ or HLG transfer tags on 10-bit streams.
 */
const pq = ["-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc"];
const hlg = ["-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc"];
const picture = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1"];
const tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=1:sample_rate=48000"];

export const codecSamples: Record<string, string[]> = {
  "h264-baseline.mp4": [...picture, ...tone, "-c:v", "libx264", "-profile:v", "baseline", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart"],
  "h264-high.mp4": [...picture, ...tone, "-c:v", "libx264", "-profile:v", "high", "-pix_fmt", "yuv420p", "-c:a", "aac"],
  "hevc.mp4": [...picture, "-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1", "-pix_fmt", "yuv420p", "-movflags", "+faststart"],
  "vp9.webm": [...picture, ...tone, "-c:v", "libvpx-vp9", "-b:v", "200k", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus"],
  "av1.mp4": [...picture, "-c:v", "libsvtav1", "-preset", "12", "-pix_fmt", "yuv420p", "-movflags", "+faststart"],
  "opus.webm": [...tone, "-c:a", "libopus"],
  "opus.ogg": [...tone, "-c:a", "libopus"],
  "aac.m4a": [...tone, "-c:a", "aac", "-movflags", "+faststart"],
  "flac.flac": [...tone, "-c:a", "flac"],
  "mp3.mp3": [...tone, "-c:a", "libmp3lame", "-b:a", "96k"],
  "ac3.mp4": [...tone, "-c:a", "ac3", "-movflags", "+faststart"],
  "hdr10-hevc.mp4": [...picture, "-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1", "-pix_fmt", "yuv420p10le", ...pq, "-movflags", "+faststart"],
  "hdr10-vp9.webm": [...picture, "-c:v", "libvpx-vp9", "-profile:v", "2", "-pix_fmt", "yuv420p10le", "-b:v", "200k", "-deadline", "realtime", "-cpu-used", "8", ...pq],
  "hlg-vp9.webm": [...picture, "-c:v", "libvpx-vp9", "-profile:v", "2", "-pix_fmt", "yuv420p10le", "-b:v", "200k", "-deadline", "realtime", "-cpu-used", "8", ...hlg],
};

/** Generates the files once into test/.fixtures/codecs (gitignored) and returns the directory. */
export function ensureCodecSamples(root: string): string {
  const dir = join(root, "test", ".fixtures", "codecs");
  mkdirSync(dir, { recursive: true });
  for (const [name, args] of Object.entries(codecSamples)) {
    const out = join(dir, name);
    if (!existsSync(out)) execFileSync(process.env.FFMPEG_PATH ?? "ffmpeg", ["-loglevel", "error", "-y", ...args, out], { stdio: "inherit" });
  }
  return dir;
}
