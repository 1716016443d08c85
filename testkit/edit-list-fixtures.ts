/**
 * MP4s with edit lists, made with ffmpeg the way people make them: a stream copy cut at a non-keyframe (an edit
 * that starts after the samples kept before the cut), a copy with -itsoffset (an empty edit before each track),
 * a cut with a length; and each again with the movie header's duration zeroed (a recorder that never finalised
 * it), where only the tracks' edits give the length.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const editListFiles = {
  "cut-at-1.3s.mp4": ["-ss", "1.3", "-i", "src.mp4", "-c", "copy"],
  "delayed-2s.mp4": ["-itsoffset", "2", "-i", "src.mp4", "-c", "copy"],
  "cut-2.5s-for-2s.mp4": ["-ss", "2.5", "-t", "2", "-i", "src.mp4", "-c", "copy"],
  "cut-at-1.3s.mov": ["-ss", "1.3", "-i", "src.mp4", "-c", "copy"],
} as const;
export type EditListFile = keyof typeof editListFiles;

/** The file with mvhd's duration set to 0 (version 0 or 1). */
export function withoutMovieDuration(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  const at = out.indexOf("mvhd", 0, "latin1") + 4;
  if (out[at] === 1) out.writeBigUInt64BE(0n, at + 24);
  else out.writeUInt32BE(0, at + 16);
  return out;
}

/** Writes the source, each edited copy and its `no-mvhd-` twin into dir, once. */
export function ensureEditListFixtures(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const run = (args: string[]) => execFileSync(process.env.FFMPEG_PATH ?? "ffmpeg", ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", ...args], { stdio: "pipe" });
  const source = join(dir, "src.mp4");
  if (!existsSync(source)) {
    // Keyframes every 2 s, so a cut at 1.3 s keeps the samples from 0 s and starts its edit 1.3 s in.
    run(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "6",
      "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-c:a", "aac", "-shortest", join(dir, "partial-src.mp4")]);
    renameSync(join(dir, "partial-src.mp4"), source);
  }
  for (const [name, args] of Object.entries(editListFiles)) {
    if (existsSync(join(dir, `no-mvhd-${name}`))) continue;
    const partial = join(dir, `partial-${name}`);
    run([...args.map((a) => (a === "src.mp4" ? source : a)), "-f", name.endsWith(".mov") ? "mov" : "mp4", partial]);
    writeFileSync(join(dir, `no-mvhd-${name}`), withoutMovieDuration(readFileSync(partial)));
    renameSync(partial, join(dir, name));
  }
  return dir;
}
