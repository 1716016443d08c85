/**
 * The long tail's remaining formats, small and made at set-up: raw H.264/HEVC Annex B streams (ffmpeg's h264/hevc
 * muxers), WAVE files of every common non-PCM format tag (ffmpeg's encoders, and one IEEE-float header written
 * here, since ffmpeg writes float as WAVE_FORMAT_EXTENSIBLE), Ogg video (Theora with Vorbis, Theora alone at
 * 30000/1001, VP8). Each a few kilobytes.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { makeMissing } from "./make-missing.ts";

const ffmpeg = (args: string[]) => execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", ...args], { stdio: ["ignore", "ignore", "pipe"] });
const picture = (size: string, rate: string) => ["-f", "lavfi", "-i", `testsrc2=size=${size}:rate=${rate}:duration=0.6`];
const tone = (rate: number, seconds = 1.5) => ["-f", "lavfi", "-i", `sine=frequency=440:sample_rate=${rate}:duration=${seconds}`];
const x265 = ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error"];

/** Raw streams: the name, then what it holds (ffprobe is the reference the tests read). */
export const rawVideoFiles = ["lt-raw-main.h264", "lt-raw-high.264", "lt-raw-main.hevc", "lt-raw-main10.265"] as const;
export const waveCodecFiles = ["lt-ima-adpcm.wav", "lt-ms-adpcm.wav", "lt-alaw.wav", "lt-mulaw.wav", "lt-float-ext.wav", "lt-mp3.wav",
  "lt-gsm.wav", "lt-s24-6ch.wav", "lt-float-tag3.wav"] as const;
export const oggVideoFiles = ["lt-theora.ogv", "lt-theora-ntsc.ogv", "lt-vp8.ogv"] as const;
export const longtailMoreFiles = [...rawVideoFiles, ...waveCodecFiles, ...oggVideoFiles] as const;

type File = (typeof longtailMoreFiles)[number];

/** A WAVEFORMATEX IEEE-float header (tag 3, no extension) over `seconds` of a stereo 32-bit float ramp. */
export function floatTag3Wave(rate = 16000, seconds = 0.75): Buffer {
  const frames = Math.round(rate * seconds);
  const data = Buffer.alloc(frames * 8);
  for (let i = 0; i < frames; i++) { data.writeFloatLE(Math.sin(i / 8) * 0.5, i * 8); data.writeFloatLE(0.25, i * 8 + 4); }
  const fmt = Buffer.alloc(8 + 18);
  fmt.write("fmt ", 0, "latin1");
  fmt.writeUInt32LE(18, 4);
  fmt.writeUInt16LE(3, 8); // WAVE_FORMAT_IEEE_FLOAT
  fmt.writeUInt16LE(2, 10);
  fmt.writeUInt32LE(rate, 12);
  fmt.writeUInt32LE(rate * 8, 16);
  fmt.writeUInt16LE(8, 20);
  fmt.writeUInt16LE(32, 22);
  fmt.writeUInt16LE(0, 24); // cbSize
  const fact = Buffer.from([0x66, 0x61, 0x63, 0x74, 4, 0, 0, 0, 0, 0, 0, 0]);
  fact.writeUInt32LE(frames, 8);
  const dataHeader = Buffer.alloc(8);
  dataHeader.write("data", 0, "latin1");
  dataHeader.writeUInt32LE(data.length, 4);
  const body = Buffer.concat([Buffer.from("WAVE", "latin1"), fmt, fact, dataHeader, data]);
  const riff = Buffer.alloc(8);
  riff.write("RIFF", 0, "latin1");
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

const makers: Record<File, (out: string) => void> = {
  "lt-raw-main.h264": (out) => ffmpeg([...picture("176x144", "25"), "-c:v", "libx264", "-profile:v", "main", "-pix_fmt", "yuv420p",
    "-bsf:v", "h264_metadata=aud=insert", "-f", "h264", out]),
  "lt-raw-high.264": (out) => ffmpeg([...picture("180x120", "30000/1001"), "-c:v", "libx264", "-profile:v", "high", "-pix_fmt", "yuv420p", "-f", "h264", out]),
  "lt-raw-main.hevc": (out) => ffmpeg([...picture("176x144", "25"), ...x265, "-pix_fmt", "yuv420p", "-f", "hevc", out]),
  "lt-raw-main10.265": (out) => ffmpeg([...picture("200x100", "24"), ...x265, "-pix_fmt", "yuv420p10le", "-f", "hevc", out]),
  "lt-ima-adpcm.wav": (out) => ffmpeg([...tone(22050), "-ac", "1", "-c:a", "adpcm_ima_wav", "-f", "wav", out]),
  "lt-ms-adpcm.wav": (out) => ffmpeg([...tone(22050), "-ac", "2", "-c:a", "adpcm_ms", "-f", "wav", out]),
  "lt-alaw.wav": (out) => ffmpeg([...tone(8000), "-c:a", "pcm_alaw", "-f", "wav", out]),
  "lt-mulaw.wav": (out) => ffmpeg([...tone(8000), "-ac", "2", "-c:a", "pcm_mulaw", "-f", "wav", out]),
  "lt-float-ext.wav": (out) => ffmpeg([...tone(22050), "-c:a", "pcm_f32le", "-f", "wav", out]),
  "lt-mp3.wav": (out) => ffmpeg([...tone(22050), "-c:a", "libmp3lame", "-b:a", "64k", "-f", "wav", out]),
  "lt-gsm.wav": (out) => ffmpeg([...tone(8000), "-c:a", "libgsm_ms", "-f", "wav", out]),
  "lt-s24-6ch.wav": (out) => ffmpeg([...tone(16000, 0.5), "-ac", "6", "-c:a", "pcm_s24le", "-f", "wav", out]),
  "lt-float-tag3.wav": (out) => writeFileSync(out, floatTag3Wave()),
  "lt-theora.ogv": (out) => ffmpeg([...picture("176x144", "25"), ...tone(44100, 0.6), "-c:v", "libtheora", "-q:v", "4", "-c:a", "libvorbis", "-f", "ogg", out]),
  "lt-theora-ntsc.ogv": (out) => ffmpeg([...picture("160x96", "30000/1001"), "-c:v", "libtheora", "-pix_fmt", "yuv420p", "-f", "ogg", out]),
  "lt-vp8.ogv": (out) => ffmpeg([...picture("176x144", "24"), "-c:v", "libvpx", "-deadline", "realtime", "-f", "ogg", out]),
};

/** Writes the missing files into dir (each written whole under another name, then renamed). Returns dir. */
export function ensureLongtailMoreFixtures(dir: string): string {
  return makeMissing(dir, longtailMoreFiles, (file, partial) => makers[file](partial));
}
