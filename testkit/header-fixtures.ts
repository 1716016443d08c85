import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The container classes the edge reads from headers, made with ffmpeg: the raw-audio and legacy
 * containers (AC-3, E-AC-3, ADTS, RF64, FLV, AVI) and the size / timing cases (pasp, Matroska DisplayWidth, an
 * MP4 whose track duration is no measure of its frame rate).
 */
const sine = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-t", "4"];
const stereo = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "4", "-ac", "2"];
const pattern = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "3"];

export const headerFixtures: Record<string, string[]> = {
  "mono.ac3": [...sine, "-c:a", "ac3", "-f", "ac3"],
  "stereo.eac3": [...stereo, "-c:a", "eac3", "-f", "eac3"],
  "mono.aac": [...sine, "-c:a", "aac", "-f", "adts"],
  "rf64.wav": [...stereo, "-c:a", "pcm_s16le", "-rf64", "always", "-f", "wav"],
  "video.flv": [...pattern, ...stereo, "-c:v", "flv1", "-c:a", "libmp3lame", "-ar", "44100", "-f", "flv"],
  "video.avi": [...pattern, ...stereo, "-c:v", "mpeg4", "-c:a", "mp2", "-f", "avi"],
  // 720x576 stored, shown 1024x576 (PAL 16:9): pasp 64:45 in MP4, DisplayWidth in Matroska.
  "anamorphic.mp4": ["-f", "lavfi", "-i", "testsrc2=size=720x576:rate=25", "-t", "2", "-vf", "setsar=64/45", "-c:v", "libx264",
    "-preset", "ultrafast", "-f", "mp4"],
  "anamorphic.mkv": ["-f", "lavfi", "-i", "testsrc2=size=720x576:rate=25", "-t", "2", "-vf", "setsar=64/45", "-c:v", "libx264",
    "-preset", "ultrafast", "-f", "matroska"],
  "h264-aac.ts": [...pattern, ...stereo, "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-f", "mpegts"],
  "mpeg2-mp2.ts": [...pattern, ...stereo, "-c:v", "mpeg2video", "-c:a", "mp2", "-f", "mpegts"],
  // audio-only transport streams were reported as video.
  "audio-only.ts": [...stereo, "-c:a", "mp2", "-f", "mpegts"],
  "ac3-only.ts": [...stereo, "-c:a", "ac3", "-f", "mpegts"],
  // Fragmented MP4 without mehd: an index at the end (mfra), and a DASH-style one after the moov (sidx).
  "fragmented-mfra.mp4": [...pattern, "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-movflags", "frag_keyframe", "-f", "mp4"],
  "fragmented-sidx.mp4": [...pattern, "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-movflags", "dash+global_sidx", "-f", "mp4"],
  // 30 fps, but the last of 15 frames lasts 2 s (a slideshow's end, a paused screen recording): ffprobe's
  // r_frame_rate is 30, frames over duration is 6.
  "long-last-frame.mp4": ["-f", "lavfi", "-t", "0.5", "-i", "testsrc2=size=320x240:rate=30", "-vf", "setpts='if(eq(N,14),PTS+2/TB,PTS)'",
    "-vsync", "vfr", "-c:v", "libx264", "-preset", "ultrafast", "-f", "mp4"],
};

export function ensureHeaderFixtures(dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, args] of Object.entries(headerFixtures)) {
    const out = join(dir, name);
    if (!existsSync(out)) execFileSync(process.env.FFMPEG_PATH ?? "ffmpeg", ["-loglevel", "error", "-y", ...args, out]);
  }
  return dir;
}
