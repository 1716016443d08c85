/**
 * An HLS multivariant playlist naming a WebVTT chapter list (EXT-X-SESSION-DATA com.apple.hls.chapters), made at
 * set-up: the WebVTT is ffmpeg's conversion of an SRT, the variant is the ffmpeg-made HLS stream's first media
 * playlist (served from the streams fixtures as /media/hls/v0/index.m3u8). Served as /media/hls-chapters/master.m3u8.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function ensureStreamChapterFixtures(dir: string): string {
  const out = join(dir, "hls-chapters");
  mkdirSync(out, { recursive: true });
  if (existsSync(join(out, "master.m3u8"))) return dir;
  writeFileSync(join(out, "ch.srt"), "1\n00:00:00,000 --> 00:00:01,250\nIntro\n\n2\n00:00:01,250 --> 00:01:02,500\nMain part\n\n3\n00:01:02,500 --> 01:00:00,000\nCredits\n");
  execFileSync("ffmpeg", ["-v", "error", "-y", "-i", join(out, "ch.srt"), join(out, "ch.vtt")]);
  writeFileSync(join(out, "master.m3u8"), "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-SESSION-DATA:DATA-ID=\"com.apple.hls.chapters\",URI=\"ch.vtt\"\n"
    + "#EXT-X-STREAM-INF:BANDWIDTH=730400,RESOLUTION=480x270,CODECS=\"avc1.42c015,mp4a.40.2\"\n../hls/v0/index.m3u8\n");
  return dir;
}
