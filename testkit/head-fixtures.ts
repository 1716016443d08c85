import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Files whose facts lie past a 16 KiB probe head: each edge reader must ask for exactly the
 * bytes it needs. Made here with ffmpeg (plus a little byte surgery for the JPEG), nothing binary committed.
 */
const ffmpeg = () => process.env.FFMPEG_PATH ?? "ffmpeg";

function run(args: string[]): Buffer {
  return execFileSync(ffmpeg(), ["-loglevel", "error", "-y", ...args], { maxBuffer: 64 * 1024 * 1024 });
}

/** A noise picture (incompressible) for cover art: about 95 KB as PNG. */
function cover(dir: string): string {
  const out = join(dir, "head-cover.png");
  if (!existsSync(out)) {
    run(["-f", "lavfi", "-i", "nullsrc=s=256x256,geq=r='random(1)*255':g='random(2)*255':b='random(3)*255'", "-frames:v", "1", "-pix_fmt", "rgb24", out]);
  }
  return out;
}

/** A JPEG marker segment: marker, 16-bit length (itself included), payload. */
function segment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head[0] = 0xff;
  head[1] = marker;
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/** APP1 EXIF: a big-endian TIFF header and an IFD0 with Orientation = 6, padded to a full 64 KiB segment. */
function exifOrientation6(): Buffer {
  const tiff = Buffer.alloc(65533 - 2 - 6);
  tiff.write("MM", 0, "latin1");
  tiff.writeUInt16BE(42, 2);
  tiff.writeUInt32BE(8, 4);
  tiff.writeUInt16BE(1, 8); // one entry
  tiff.writeUInt16BE(0x0112, 10); // Orientation
  tiff.writeUInt16BE(3, 12); // SHORT
  tiff.writeUInt32BE(1, 14);
  tiff.writeUInt16BE(6, 18);
  tiff.writeUInt32BE(0, 22); // no next IFD
  return segment(0xe1, Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiff]));
}

/** The ICC_PROFILE APP2 segment(s) of a committed Display P3 JPEG. */
function p3IccSegments(imagesDir: string): Buffer {
  const b = readFileSync(join(imagesDir, "jpeg-p3.jpg"));
  const parts: Buffer[] = [];
  for (let o = 2; o + 4 <= b.length && b[o + 1] !== 0xda;) {
    const length = b.readUInt16BE(o + 2);
    if (b[o + 1] === 0xe2) parts.push(b.subarray(o, o + 2 + length));
    o += 2 + length;
  }
  return Buffer.concat(parts);
}

export interface HeadFixture {
  /** How to make it in `dir` (the origin's media directory); `imagesDir` holds the committed test images. */
  make: (dir: string, imagesDir: string) => Buffer;
}

const stereo = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=44100",
  "-filter_complex", "[0:a][1:a]join=inputs=2:channel_layout=stereo[a]", "-map", "[a]"];

export const headFixtures: Record<string, HeadFixture> = {
  // SOI, a 64 KiB EXIF (orientation 6), 30 KB of APP13, then a Display P3 ICC profile and the frame header.
  "big-exif.jpeg": {
    make: (_dir, imagesDir) => {
      const jpeg = run(["-f", "lavfi", "-i", "testsrc2=size=640x480", "-frames:v", "1", "-q:v", "4", "-f", "mjpeg", "pipe:1"]);
      return Buffer.concat([jpeg.subarray(0, 2), exifOrientation6(), segment(0xed, Buffer.alloc(30_000, 0x20)), p3IccSegments(imagesDir), jpeg.subarray(2)]);
    },
  },
  // moov at the end (the mp4 muxer's default), 30 s of stereo AAC.
  "moov-end.m4a": { make: () => viaFile([...stereo, "-t", "30", "-c:a", "aac", "-b:a", "96k"], "mp4") },
  // A moov far larger than the head at the start: 2 minutes of small video and audio make long sample tables.
  "big-moov.mp4": {
    make: () => viaFile(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
      "-t", "120", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "40", "-pix_fmt", "yuv420p", "-g", "250", "-c:a", "aac", "-b:a", "32k", "-movflags", "+faststart"], "mp4"),
  },
  // The same long sample tables with the moov at the end (the muxer's default): the moov is found past the mdat.
  "big-moov-end.mp4": {
    make: () => viaFile(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
      "-t", "120", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "40", "-pix_fmt", "yuv420p", "-g", "250", "-c:a", "aac", "-b:a", "32k"], "mp4"),
  },
  // The Segment's Info carries a 24 KB title, so Tracks start well past the head.
  "late-tracks.mkv": {
    make: () => viaFile(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
      "-t", "3", "-c:v", "libvpx", "-deadline", "realtime", "-b:v", "200k", "-c:a", "libopus", "-metadata", `title=${"T".repeat(24_000)}`], "matroska"),
  },
  // A 95 KB front cover in a PICTURE block before the audio frames.
  "big-picture.flac": {
    make: (dir) => viaFile(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-i", cover(dir), "-map", "0:a", "-map", "1:v", "-t", "20",
      "-c:a", "flac", "-c:v", "copy", "-disposition:v", "attached_pic"], "flac"),
  },
  // A 95 KB APIC in the ID3v2 tag, CBR without a Xing/Info header: the duration comes from the frames after the tag.
  "big-id3.mp3": {
    make: (dir) => viaFile(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-i", cover(dir), "-map", "0:a", "-map", "1:v", "-t", "20",
      "-c:a", "libmp3lame", "-b:a", "128k", "-write_xing", "0", "-c:v", "copy", "-id3v2_version", "3", "-disposition:v", "attached_pic"], "mp3"),
  },
  // 30 s of Vorbis: the duration is on the last page, far past the head.
  "long.ogg": { make: () => run([...stereo, "-t", "30", "-c:a", "libvorbis", "-f", "ogg", "pipe:1"]) },
  // 30 s of Opus in Ogg: the last page's granule counts 48 kHz samples from before the pre-skip.
  "long-opus.ogg": { make: () => run([...stereo, "-t", "30", "-c:a", "libopus", "-b:a", "48k", "-f", "ogg", "pipe:1"]) },
};

/** MP4 and ID3v2 muxing need a seekable output (they write sizes back): made in a temporary file. */
function viaFile(args: string[], format: string): Buffer {
  const out = join(process.env.TMPDIR ?? "/tmp", `head-fixture-${process.pid}-${Date.now()}.${format}`);
  run([...args, "-f", format, out]);
  const bytes = readFileSync(out);
  execFileSync("rm", ["-f", out]);
  return bytes;
}

export const headFixtureFiles = Object.keys(headFixtures);

export function ensureHeadFixtures(dir: string, imagesDir: string): void {
  for (const [name, fixture] of Object.entries(headFixtures)) {
    const out = join(dir, name);
    if (!existsSync(out)) writeFileSync(out, fixture.make(dir, imagesDir));
  }
}
