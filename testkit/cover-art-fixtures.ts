/**
 * Audio files with and without embedded cover art, written by the real ffmpeg into a directory: ID3 APIC (MP3),
 * a FLAC PICTURE block, an MP4 covr atom (M4A, moov first), a Vorbis-comment METADATA_BLOCK_PICTURE (Ogg). The
 * cover is a 400x300 test pattern, wider than tall, so a thumbnail's shape shows it came from the cover.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const ffmpeg = (args: string[]) => run(process.env.FFMPEG_PATH ?? "ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args]);

export const coverSize = { width: 400, height: 300 };
export const withCover = ["cover.mp3", "cover.flac", "cover.m4a", "cover.ogg"] as const;
export const withoutCover = ["plain.mp3", "plain.flac", "plain.m4a", "plain.ogg"] as const;

export async function makeCoverArtFixtures(dir: string): Promise<void> {
  const at = (name: string) => join(dir, name);
  const tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=2"];
  const pattern = ["-f", "lavfi", "-i", `testsrc2=size=${coverSize.width}x${coverSize.height}:rate=1`, "-frames:v", "1"];
  await ffmpeg([...pattern, at("cover.png")]);
  await ffmpeg([...pattern, at("cover.jpg")]);
  await ffmpeg([...tone, "-c:a", "libmp3lame", "-b:a", "64k", at("plain.mp3")]);
  await ffmpeg([...tone, "-c:a", "flac", at("plain.flac")]);
  await ffmpeg([...tone, "-c:a", "aac", "-b:a", "64k", "-movflags", "+faststart", at("plain.m4a")]);
  await ffmpeg([...tone, "-c:a", "libvorbis", at("plain.ogg")]);
  await ffmpeg(["-i", at("plain.mp3"), "-i", at("cover.png"), "-map", "0", "-map", "1", "-c", "copy", "-id3v2_version", "3",
    "-metadata:s:v", "comment=Cover (front)", at("cover.mp3")]);
  await ffmpeg(["-i", at("plain.flac"), "-i", at("cover.png"), "-map", "0", "-map", "1", "-c", "copy", "-disposition:v", "attached_pic",
    "-metadata:s:v", "comment=Cover (front)", at("cover.flac")]);
  await ffmpeg(["-i", at("plain.m4a"), "-i", at("cover.jpg"), "-map", "0", "-map", "1", "-c", "copy", "-disposition:v", "attached_pic",
    "-movflags", "+faststart", at("cover.m4a")]);
  // ffmpeg's Ogg muxer takes no picture stream; the picture goes in as the Vorbis comment players read.
  const picture = flacPictureBlock(await readFile(at("cover.png")), "image/png");
  await ffmpeg(["-i", at("plain.ogg"), "-c", "copy", "-metadata", `METADATA_BLOCK_PICTURE=${picture.toString("base64")}`, at("cover.ogg")]);
}

/** A FLAC PICTURE block body (front cover), the form METADATA_BLOCK_PICTURE carries in base64. */
function flacPictureBlock(data: Buffer, mime: string): Buffer {
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const mimeBytes = Buffer.from(mime, "ascii");
  return Buffer.concat([
    u32(3), u32(mimeBytes.length), mimeBytes, u32(0),
    u32(coverSize.width), u32(coverSize.height), u32(24), u32(0), u32(data.length), data,
  ]);
}
