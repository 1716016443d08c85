/**
 * Media fixtures made by the real ffmpeg in the test set-up (never committed). Each is generated once into
 * test/.fixtures/runner and reused while the recipe version matches.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createDeflate } from "node:zlib";

const run = promisify(execFile);
export const fixturesDir = new URL("../../test/.fixtures/runner/", import.meta.url).pathname;
const recipeVersion = "6";
const ffmpeg = process.env.FFMPEG_PATH ?? "ffmpeg";

const base = ["-hide_banner", "-loglevel", "error", "-y"];
const video = (size: string, seconds: number) => ["-f", "lavfi", "-i", `testsrc2=size=${size}:rate=25:duration=${seconds}`];
const tone = (seconds: number, rate = 44100) => ["-f", "lavfi", "-i", `sine=frequency=440:sample_rate=${rate}:duration=${seconds}`];
const x264 = ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", "25"];

/** name -> ffmpeg arguments (output path appended). */
const recipes: Record<string, string[]> = {
  "h264-aac-faststart.mp4": [...video("640x360", 4), ...tone(4), ...x264, "-c:a", "aac", "-b:a", "96k", "-ac", "2", "-movflags", "+faststart", "-shortest"],
  "h264-aac-moov-end.mp4": [...video("640x360", 4), ...tone(4), ...x264, "-c:a", "aac", "-b:a", "96k", "-ac", "2", "-shortest"],
  "long-moov-end.mp4": [...video("320x240", 30), ...tone(30), ...x264, "-b:v", "600k", "-c:a", "aac", "-b:a", "64k", "-shortest"],
  "vp9-opus.webm": [...video("320x240", 3), ...tone(3, 48000), "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "300k", "-c:a", "libopus", "-b:a", "64k", "-shortest"],
  "tone.mp3": [...tone(3), "-ac", "2", "-c:a", "libmp3lame", "-b:a", "128k"],
  "tone.flac": [...tone(3), "-ac", "1", "-c:a", "flac"],
  "tone.ogg": [...tone(3), "-ac", "2", "-c:a", "libvorbis", "-q:a", "3"],
  "tone.wav": [...tone(3, 22050), "-ac", "1", "-c:a", "pcm_s16le"],
  "large.png": ["-f", "lavfi", "-i", "testsrc2=size=6000x4000:rate=1", "-frames:v", "1", "-pix_fmt", "rgb24"],
  "alpha.png": ["-f", "lavfi", "-i", "testsrc2=size=400x300:rate=1", "-frames:v", "1", "-vf", "format=rgba,colorchannelmixer=aa=0.5", "-pix_fmt", "rgba"],
  "one-frame.mp4": [...video("320x240", 1), "-frames:v", "1", ...x264],
  "no-audio.mp4": [...video("480x270", 2), ...x264, "-movflags", "+faststart"],
  "black-intro.mp4": ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4,fade=in:st=0:d=1.6", ...x264.slice(0, -2), "-g", "250"],
};

/** A PNG of zero rows: small on disk, gigapixels once decoded. */
async function decompressionBombPng(width: number, height: number): Promise<Buffer> {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([1, 0, 0, 0, 0], 8); // 1-bit greyscale, deflate, no filter, no interlace
  // Rows of zeros (filter byte 0 + width/8 bytes each), streamed through deflate to keep memory modest.
  const rowBytes = 1 + Math.ceil(width / 8);
  const rowsPerSlice = 1000;
  const slice = Buffer.alloc(rowBytes * rowsPerSlice);
  async function* rows() {
    for (let row = 0; row < height; row += rowsPerSlice) yield slice.subarray(0, Math.min(rowsPerSlice, height - row) * rowBytes);
  }
  const compressed: Buffer[] = [];
  await pipeline(Readable.from(rows()), createDeflate({ level: 9 }), async (source: AsyncIterable<Buffer>) => {
    for await (const part of source) compressed.push(part);
  });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", Buffer.concat(compressed)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** Deterministic bytes that no demuxer accepts (an LCG, so reruns give the same file). */
function noise(bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  let state = 12345;
  for (let i = 0; i < bytes; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

/** Offset of the first top-level ISO-BMFF box of this type (32-bit sizes: the fixtures are small). */
function topLevelBoxOffset(file: Buffer, type: string): number {
  for (let offset = 0; offset + 8 <= file.length; ) {
    const size = file.readUInt32BE(offset);
    if (file.toString("latin1", offset + 4, offset + 8) === type) return offset;
    if (size < 8) break;
    offset += size;
  }
  throw new Error(`no ${type} box`);
}

export async function generateFixtures(dir = fixturesDir): Promise<string> {
  const stamp = join(dir, "recipe-version");
  if (existsSync(stamp) && (await readFile(stamp, "utf8")) === recipeVersion) return dir;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  // Two at a time: the machines have two cores.
  const names = Object.keys(recipes);
  for (let i = 0; i < names.length; i += 2) {
    await Promise.all(names.slice(i, i + 2).map((name) => run(ffmpeg, [...base, ...recipes[name]!, join(dir, name)])));
  }
  const moovEnd = await readFile(join(dir, "h264-aac-moov-end.mp4"));
  await writeFile(join(dir, "truncated.mp4"), moovEnd.subarray(0, Math.floor(moovEnd.length * 0.6)));
  // Cut at 30 %: with `moov` at the end nothing is readable; with `moov` first ffprobe still reads it all.
  await writeFile(join(dir, "truncated-30-moov-end.mp4"), moovEnd.subarray(0, Math.floor(moovEnd.length * 0.3)));
  const faststart = await readFile(join(dir, "h264-aac-faststart.mp4"));
  await writeFile(join(dir, "truncated-30-faststart.mp4"), faststart.subarray(0, Math.floor(faststart.length * 0.3)));
  // `moov` and the first bytes of `mdat`: every fact is declared, no frame can be decoded.
  await writeFile(join(dir, "header-only.mp4"), faststart.subarray(0, topLevelBoxOffset(faststart, "mdat") + 64));
  await writeFile(join(dir, "corrupt.mp4"), noise(200_000));
  await writeFile(join(dir, "bomb.png"), await decompressionBombPng(60_000, 60_000));
  await writeFile(stamp, recipeVersion);
  return dir;
}

/** A 720p, 20 s, ~7 MB H.264 MP4 with the moov first and 2 s GOPs (made once, kept with the fixtures). */
export const bigFaststart = "paced-720p-faststart.mp4";

/**
 * Makes bigFaststart in `dir` unless it is there. Test files that use it call this from beforeAll; two of them
 * may run at once, so each writes its own partial file and the rename (atomic) puts one in place.
 */
export async function makeBigFaststart(dir: string): Promise<void> {
  const out = join(dir, bigFaststart);
  if (existsSync(out)) return;
  const partial = `${out}.${process.pid}.${Math.random().toString(36).slice(2)}.partial.mp4`;
  await promisify(execFile)("ffmpeg", [
    "-hide_banner", "-loglevel", "error", "-y",
    "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=20",
    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=20",
    "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-b:v", "2800k", "-maxrate", "2800k", "-bufsize", "2800k",
    "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "96k", "-shortest", "-movflags", "+faststart", partial,
  ]);
  await rename(partial, out);
}
