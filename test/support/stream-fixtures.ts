/**
 * Streaming fixtures made by the real ffmpeg (never committed), generated once into a folder and reused while
 * the recipe version matches: an HLS master with two video variants and an audio group, the same as DASH, a
 * live HLS playlist (no EXT-X-ENDLIST), an AES-128 encrypted one, an fMP4 HLS stream and an audio-only one.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const recipeVersion = "1";
const ffmpeg = process.env.FFMPEG_PATH ?? "ffmpeg";
const base = ["-hide_banner", "-loglevel", "error", "-y"];
const seconds = 6;
const sources = [
  "-f", "lavfi", "-i", `testsrc2=size=480x270:rate=25:duration=${seconds}`,
  "-f", "lavfi", "-i", `sine=frequency=440:sample_rate=44100:duration=${seconds}`,
];
const x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25", "-sc_threshold", "0"];
const aac = ["-c:a", "aac", "-b:a", "64k", "-ac", "2"];
const twoVariants = ["-filter_complex", "[0:v]split=2[a][b];[b]scale=240:136[small]", "-map", "[a]", "-map", "[small]", "-map", "1:a"];

/** The key of the encrypted stream (AES-128, fixed so reruns give the same files). */
export const streamKey = Buffer.from("00112233445566778899aabbccddeeff", "hex");
export const streamSeconds = seconds;

/** Relative paths of the entry manifests inside the fixtures folder. */
export const streams = {
  hlsMaster: "hls/master.m3u8",
  hlsLowVariant: "hls/v1/index.m3u8",
  dash: "dash/manifest.mpd",
  live: "live/index.m3u8",
  encrypted: "enc/index.m3u8",
  fmp4: "fmp4/index.m3u8",
  audioOnly: "audio/master.m3u8",
} as const;

export async function generateStreamFixtures(dir: string): Promise<string> {
  const stamp = join(dir, "recipe-version");
  if (existsSync(stamp) && (await readFile(stamp, "utf8")) === recipeVersion) return dir;
  await rm(dir, { recursive: true, force: true });
  for (const sub of ["hls", "dash", "live", "enc", "fmp4", "audio"]) await mkdir(join(dir, sub), { recursive: true });
  await writeFile(join(dir, "enc", "key.bin"), streamKey);
  await writeFile(join(dir, "enc", "keyinfo"), `key.bin\n${join(dir, "enc", "key.bin")}\n`);
  const jobs: string[][] = [
    [...sources, ...twoVariants, ...x264, "-b:v:0", "600k", "-b:v:1", "200k", ...aac,
      "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_filename", join(dir, "hls", "v%v", "seg%d.ts"),
      "-master_pl_name", "master.m3u8",
      "-var_stream_map", "v:0,agroup:aud v:1,agroup:aud a:0,agroup:aud,language:en,name:English,default:yes",
      join(dir, "hls", "v%v", "index.m3u8")],
    [...sources, ...twoVariants, ...x264, "-b:v:0", "600k", "-b:v:1", "200k", ...aac, "-metadata:s:a:0", "language=fre",
      "-f", "dash", "-seg_duration", "2", "-use_timeline", "1", "-use_template", "1",
      "-adaptation_sets", "id=0,streams=v id=1,streams=a", join(dir, "dash", "manifest.mpd")],
    [...sources, "-map", "0:v", "-map", "1:a", ...x264, ...aac, "-f", "hls", "-hls_time", "2", "-hls_list_size", "3",
      "-hls_flags", "omit_endlist", "-hls_segment_filename", join(dir, "live", "seg%d.ts"), join(dir, "live", "index.m3u8")],
    [...sources, "-map", "0:v", "-map", "1:a", ...x264, ...aac, "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
      "-hls_key_info_file", join(dir, "enc", "keyinfo"), "-hls_segment_filename", join(dir, "enc", "seg%d.ts"), join(dir, "enc", "index.m3u8")],
    [...sources, "-map", "0:v", "-map", "1:a", ...x264, ...aac, "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
      "-hls_segment_type", "fmp4", "-hls_segment_filename", join(dir, "fmp4", "seg%d.m4s"), join(dir, "fmp4", "index.m3u8")],
    ["-f", "lavfi", "-i", `sine=frequency=440:sample_rate=44100:duration=${seconds}`, "-map", "0:a", ...aac,
      "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-master_pl_name", "master.m3u8",
      "-var_stream_map", "a:0", "-hls_segment_filename", join(dir, "audio", "a%v", "seg%d.aac"), join(dir, "audio", "a%v", "index.m3u8")],
  ];
  // Two at a time: the machines have two cores.
  for (let i = 0; i < jobs.length; i += 2) await Promise.all(jobs.slice(i, i + 2).map((args) => run(ffmpeg, [...base, ...args])));
  await writeFile(stamp, recipeVersion);
  return dir;
}
