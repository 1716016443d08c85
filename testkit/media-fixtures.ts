import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeMissing } from "./make-missing.ts";

const ffmpeg = () => process.env.FFMPEG_PATH ?? "ffmpeg";

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

/** A FLAC METADATA_BLOCK_PICTURE (front cover, PNG) as Vorbis comments carry it: base64 of the picture block. */
function flacPictureBlock(png: Buffer, width: number, height: number): string {
  const mime = Buffer.from("image/png");
  const header = Buffer.alloc(8 + mime.length + 4 + 20);
  let o = 0;
  header.writeUInt32BE(3, o); o += 4; // front cover
  header.writeUInt32BE(mime.length, o); o += 4;
  mime.copy(header, o); o += mime.length;
  header.writeUInt32BE(0, o); o += 4; // empty description
  header.writeUInt32BE(width, o); header.writeUInt32BE(height, o + 4); header.writeUInt32BE(24, o + 8);
  header.writeUInt32BE(0, o + 12); header.writeUInt32BE(png.length, o + 16);
  return Buffer.concat([header, png]).toString("base64");
}

const stereoSine = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=44100",
  "-filter_complex", "[0:a][1:a]join=inputs=2:channel_layout=stereo[a]", "-map", "[a]"];

/**
 * The classes of files the service used to get wrong (files the service used to get wrong), each made here so nothing binary is committed.
 * `args` are ffmpeg arguments before the output; `make` builds the file from others (truncation, pipes).
 */
export const factFixtures: Record<string, { args?: string[]; make?: (dir: string) => Buffer; rotate?: boolean }> = {
  // Opus resamples 44.1 kHz input: the header's "input sample rate" says 44100, every decoder runs at 48000.
  "opus.webm": { args: [...stereoSine, "-t", "4", "-c:a", "libopus", "-b:a", "64k", "-f", "webm"] },
  "flac.mka": { args: [...stereoSine, "-t", "4", "-c:a", "flac", "-sample_fmt", "s16", "-f", "matroska"] },
  "vorbis-cover.ogg": {
    make: (dir) => {
      const cover = join(dir, "cover-64x48.png");
      if (!existsSync(cover)) run(["-f", "lavfi", "-i", "testsrc2=size=64x48", "-frames:v", "1", cover]);
      const picture = flacPictureBlock(readFileSync(cover), 64, 48);
      return run(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-t", "4", "-c:a", "libvorbis",
        "-metadata:s:a:0", `METADATA_BLOCK_PICTURE=${picture}`, "-f", "ogg", "pipe:1"]);
    },
  },
  "audio.wma": { args: [...stereoSine, "-t", "4", "-c:a", "wmav2", "-b:a", "64k", "-f", "asf"] },
  "aac-only.mp4": { args: [...stereoSine, "-t", "4", "-c:a", "aac", "-f", "mp4"] },
  // The stream is stored 320x240 with a 90° display matrix (ffmpeg 5.1 has no option to write one: patched in):
  // players show it 240x320.
  "rotated-90.mp4": { rotate: true, args: ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
    "-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2",
    "-movflags", "+faststart", "-f", "mp4"] },
  "rotated-90.mov": { rotate: true, args: ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "2", "-c:v", "libx264", "-preset", "ultrafast",
    "-pix_fmt", "yuv420p", "-f", "mov"] },
  "animated.gif": { args: ["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=10", "-t", "1.2", "-loop", "0", "-f", "gif"] },
  "animated.webp": { args: ["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=10", "-t", "1.2", "-c:v", "libwebp_anim", "-loop", "0", "-f", "webp"] },
  "image.bmp": { args: ["-f", "lavfi", "-i", "testsrc2=size=96x64", "-frames:v", "1", "-c:v", "bmp", "-f", "image2"] },
  "image.ico": { args: ["-f", "lavfi", "-i", "testsrc2=size=48x48", "-frames:v", "1", "-c:v", "bmp", "-pix_fmt", "bgra", "-f", "ico"] },
  "image.jxl": { args: ["-f", "lavfi", "-i", "testsrc2=size=96x64", "-frames:v", "1", "-c:v", "libjxl", "-f", "image2"] },
  // The first 30 % of a faststart MP4: the moov is whole, most frames are missing.
  "truncated.mp4": { make: (dir) => { const full = readFileSync(join(dir, "video.mp4")); return full.subarray(0, Math.floor(full.length * 0.3)); } },
  // What a browser's MediaRecorder writes: a live stream, no Duration, no Cues (ffmpeg cannot seek back in a pipe).
  "recorder.webm": { make: () => run(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
    "-t", "3.5", "-c:v", "libvpx", "-deadline", "realtime", "-b:v", "300k", "-c:a", "libopus", "-f", "webm", "-live", "1", "pipe:1"]) },
  // VBR without a Xing/VBRI header: loud noise then near silence, so the first frame's rate says nothing of the rest.
  "vbr-no-xing.mp3": { args: ["-f", "lavfi", "-i", "anoisesrc=d=2:c=pink:r=44100:a=0.5,apad=pad_dur=4", "-c:a", "libmp3lame", "-q:a", "2",
    "-write_xing", "0", "-id3v2_version", "0", "-f", "mp3"] },
  // CBR without an Info header, larger than the probe's head: its duration must not cost a walk of the file.
  "cbr-no-info.mp3": { args: ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-t", "30", "-c:a", "libmp3lame", "-b:a", "128k",
    "-write_xing", "0", "-id3v2_version", "0", "-f", "mp3"] },
};

/**
 * Writes a 90° display matrix into the first track header (the video track): a=0 b=1 c=-1 d=0, tx=height, as
 * ISO 14496-12 8.3.2 and ffmpeg's own muxer write it for a rotated stream.
 */
export function withQuarterTurn(file: Buffer): Buffer {
  const out = Buffer.from(file);
  const at = out.indexOf("tkhd");
  if (at < 4) throw new Error("no tkhd to rotate");
  const version = out[at + 4]!;
  const matrix = at + 4 + (version === 1 ? 4 + 8 + 8 + 4 + 4 + 8 : 4 + 4 + 4 + 4 + 4 + 4) + 8 + 2 + 2 + 2 + 2;
  const height = out.readUInt32BE(matrix + 36 + 4);
  const values = [0, 0x10000, 0, -0x10000, 0, 0, height, 0, 0x40000000];
  values.forEach((v, i) => out.writeInt32BE(v, matrix + i * 4));
  return out;
}

function run(args: string[]): Buffer {
  return execFileSync(ffmpeg(), ["-loglevel", "error", "-y", ...args], { maxBuffer: 64 * 1024 * 1024 });
}

export function ensureMediaFixtures(dir: string): string {
  // Made whole before they get their names (makeMissing): test files running at once, and the Worker's fixtures made
  // aside, make and serve the same folder.
  makeMissing(dir, Object.keys(mediaFixtures), (name, partial) =>
    execFileSync(ffmpeg(), ["-loglevel", "error", "-y", ...mediaFixtures[name]!, partial], { stdio: "inherit" }));
  return makeMissing(dir, Object.keys(factFixtures), (name, partial) => {
    const spec = factFixtures[name]!;
    if (spec.make) writeFileSync(partial, spec.make(dir));
    else run([...spec.args!, partial]);
    if (spec.rotate) writeFileSync(partial, withQuarterTurn(readFileSync(partial)));
  });
}
