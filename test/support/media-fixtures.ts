import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";

/** Small real media files made with ffmpeg (deterministic sources: testsrc2 and sine). */
export const mediaFixtures: Record<string, string[]> = {
  "video.mp4": ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
    "-t", "4", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart"],
  "video-moov-end.mp4": ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
    "-t", "4", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac"],
  "video.webm": ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "2", "-c:v", "libvpx-vp9", "-deadline", "realtime", "-b:v", "200k"],
  "audio.mp3": ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-t", "5", "-c:a", "libmp3lame", "-b:a", "128k"],
  "audio.ogg": ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "5", "-c:a", "libvorbis"],
  "audio.flac": ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "5", "-c:a", "flac"],
  "audio.wav": ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050", "-t", "3", "-c:a", "pcm_s16le"],
  "image-1280x720.png": ["-f", "lavfi", "-i", "testsrc2=size=1280x720", "-frames:v", "1"],
  "audio.m4a": ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-t", "5", "-c:a", "aac", "-f", "mp4"],
};

export function ensureMediaFixtures(dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, args] of Object.entries(mediaFixtures)) {
    const out = join(dir, name);
    if (existsSync(out)) continue;
    execFileSync(process.env.FFMPEG_PATH ?? "ffmpeg", ["-loglevel", "error", "-y", ...args, out], { stdio: "inherit" });
  }
  return dir;
}
