import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { ensureMediaFixtures } from "../media-fixtures.ts";

/**
 * The six files `npm run samples` serves (image.jpg, image.png, video.mp4, video.webm, audio.mp3, audio.flac),
 * made with ffmpeg: the images are generated here (colourful, so the palette has something to show), the
 * audio and video are the shared media fixtures of the same names.
 */
const images: Record<string, string[]> = {
  "image.jpg": ["-f", "lavfi", "-i", "mandelbrot=size=640x400:end_pts=1:inner=convergence", "-frames:v", "1", "-q:v", "4"],
  "image.png": ["-f", "lavfi", "-i", "testsrc2=size=480x270", "-frames:v", "1"],
};

export function ensurePlaygroundSamples(root: string): string[] {
  const dir = join(root, "test", ".fixtures", "playground");
  mkdirSync(dir, { recursive: true });
  for (const [name, args] of Object.entries(images)) {
    const out = join(dir, name);
    if (!existsSync(out)) execFileSync(process.env.FFMPEG_PATH ?? "ffmpeg", ["-loglevel", "error", "-y", ...args, out], { stdio: "inherit" });
  }
  return [dir, ensureMediaFixtures(join(root, "test", ".fixtures", "media"))];
}
