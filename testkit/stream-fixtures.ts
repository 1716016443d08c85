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
const recipeVersion = "3";
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

/** Hostile manifests (text), in hostile/. `private.test` resolves to 10.0.0.5 in the worker tests' DoH. */
export const hostileStreams: Record<string, string> = {
  "file-segment.m3u8": "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n",
  "concat-segment.m3u8": "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nconcat:/etc/passwd|/etc/hosts\n#EXT-X-ENDLIST\n",
  "data-key.m3u8": "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI=\"data:text/plain;base64,AAAAAAAAAAAAAAAAAAAAAA==\"\n#EXTINF:2,\n../hls/v1/seg0.ts\n#EXT-X-ENDLIST\n",
  "private-segment.m3u8": "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nhttp://10.0.0.5/seg0.ts\n#EXT-X-ENDLIST\n",
  "private-variant.m3u8": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000,RESOLUTION=64x64\nhttp://private.test/v.m3u8\n",
  "loop-a.m3u8": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000,RESOLUTION=64x64\nloop-b.m3u8\n",
  "loop-b.m3u8": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000,RESOLUTION=64x64\nloop-a.m3u8\n",
  "self-loop.m3u8": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000,RESOLUTION=64x64\nself-loop.m3u8\n",
  "malformed.m3u8": `#EXTM3U\n#EXT-X-STREAM-INF:${"a".repeat(6000)}\nv.m3u8\n`,
  // 100,000 one-second segments in 1.3 MB: under the byte cap, over the segment cap.
  "many-segments.m3u8": ["#EXTM3U", "#EXT-X-TARGETDURATION:1", ...Array.from({ length: 100_000 }, () => "#EXTINF:1,\na"), "#EXT-X-ENDLIST", ""].join("\n"),
  // Over the byte cap (2 MiB).
  "huge.m3u8": "#EXTM3U\n" + "#EXT-X-COMMENT\n".repeat(160_000),
  "bomb.mpd": `<?xml version="1.0"?><MPD type="static" mediaPresentationDuration="PT10S"><Period>${"<BaseURL>a/</BaseURL>".repeat(40)}</Period></MPD>`,
};

/**
 * Web pages (in pages/, served as /media/pages/<name>) carrying OpenGraph, Twitter cards and JSON-LD. They name
 * media of the worker tests' origin by relative URL: /media/video.mp4 (media-fixtures), /media/png-opaque.png
 * (test/fixtures/images) and the HLS master above.
 */
export const pages: Record<string, string> = {
  "og-video.html": `<!doctype html><html lang="en-GB"><head><meta charset="utf-8">
<title>Clip page | Example Site</title>
<meta name="description" content="Plain description">
<meta property="og:title" content="The clip &amp; its story">
<meta property="og:description" content="OpenGraph description">
<meta property="og:site_name" content="Example Site">
<meta property="og:image" content="/media/png-opaque.png">
<meta property="og:video" content="/media/video.mp4">
<meta property="og:video:type" content="video/mp4">
<meta property="article:published_time" content="2026-01-02T03:04:05Z">
<meta name="twitter:card" content="player">
<meta name="twitter:title" content="Twitter title">
<meta name="twitter:creator" content="@clipmaker">
<link rel="icon" href="/favicon.ico">
<link rel="canonical" href="https://example.test/clip">
</head><body><p>body</p></body></html>`,
  "jsonld-hls.html": `<!doctype html><html><head><title>Stream page</title>
<meta name="twitter:title" content="Stream on Twitter">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"Streams Inc"},
{"@type":"VideoObject","name":"The stream","description":"A stream described by JSON-LD","uploadDate":"2025-12-24",
"author":{"@type":"Person","name":"Ada"},"contentUrl":"../hls/master.m3u8","encodingFormat":"application/x-mpegURL"}]}</script>
</head><body></body></html>`,
  "youtube.html": `<html><head><title>Watch</title><meta property="og:video" content="https://www.youtube.com/watch?v=dQw4w9WgXcQ"></head></html>`,
  "plain.html": `<html><head><title>Only a title</title><meta name="description" content="and a description"></head><body></body></html>`,
  "names-a-page.html": `<html><head><title>Loop</title><meta property="og:video" content="plain.html"></head></html>`,
  "private-media.html": `<html><head><title>Private</title><meta property="og:video" content="http://private.test/v.mp4"></head></html>`,
};

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
  await mkdir(join(dir, "pages"), { recursive: true });
  for (const [name, text] of Object.entries(pages)) await writeFile(join(dir, "pages", name), text);
  await mkdir(join(dir, "hostile"), { recursive: true });
  for (const [name, text] of Object.entries(hostileStreams)) await writeFile(join(dir, "hostile", name), text);
  await writeFile(stamp, recipeVersion);
  return dir;
}
