// Caption, text-track, audio-language and encrypted files made by other teams' software, and readings of them by
// readers nobody here wrote (test/worker/made-by-others-tracks.test.ts):
// - mux.js test/segments, shipped in its npm package: the video.js team's own caption test files (MPEG-TS with
//   CEA-608 in the H.264 SEI on CC1 and CC3, a fragmented MP4 init + media segment with CEA-608, one whose SEI is
//   malformed, one with WebVTT in MP4), served as published; the fragmented ones also as init + segment joined,
//   which is what a player appends to its buffer; and its Sintel captions re-encoded by ffmpeg into a progressive
//   MP4 and a Matroska file (made here: the captions are mux.js's, the containers ffmpeg's); and mux.js's captured
//   CEA-608 + CEA-708 constructs written into the SEI of a clip made here.
// - shaka-packager, Google's packager, shipped as a binary in its npm package: CENC (AES-CTR) and CBCS (AES-CBC,
//   1:9 pattern) files with Widevine, PlayReady and FairPlay signalling, their DASH and HLS manifests, and a clear
//   package with three audio languages (one an audio-description track) and WebVTT subtitles. Its input is a short
//   clip made here with ffmpeg; every box and manifest line about tracks and encryption is the packager's.
// - a Matroska file whose audio languages, audio-description, commentary, forced and hearing-impaired flags
//   mkvmerge wrote;
// - chapters written by tools other than ffmpeg: mkvmerge (Debian's mkvtoolnix) puts Matroska Chapters in a video
//   and an audio-only file, node-id3 writes ID3v2 CHAP and CTOC frames into an MP3; the media under them is ffmpeg's.
// Readings: ffprobe (streams, languages, A/53 caption side data in decoded frames), mux.js (captions parsed out of
// the stream), mp4box.js (sample entries, schm, tenc, pssh), and ffmpeg decrypting the packager's output with the
// key: the decoded frames must equal the clear clip's, and differ without the key, so the encryption is real.
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { createFile, MP4BoxBuffer } from "mp4box";
import { ffprobeJson, mapLimit } from "./ffprobe-reference.ts";
import { makeMissing } from "./make-missing.ts";
import { muxCaptionPackets, writeCaptionedTs } from "./cea-packet-stream.ts";

const ffmpeg = process.env.FFMPEG_PATH ?? "ffmpeg";
const execFileAsync = promisify(execFile);

/** The folder the origin serves: /media/others-tracks/muxjs/<published name>, .../joined/<name>, .../packaged/<set>/<name>. */
export const othersTracksServeDir = (repoRoot: string) => join(repoRoot, "test", ".fixtures", "made-by-others-tracks");
const othersTracksDir = (repoRoot: string) => join(othersTracksServeDir(repoRoot), "others-tracks");

/** The raw key the packager encrypts with (a test key, published here on purpose). */
export const testKey = { keyId: "a7e61c373e219033c21091fa607bf3b8", key: "76a6c65c5ea762046bd749a2e632ccbb" } as const;

/** mux.js files with video, served as published (.ts) or joined from init + media segment (.mp4). */
export const muxCaptionFiles = {
  ts: ["sintel-captions.ts", "multi-channel-608-captions.ts", "test-segment.ts", "test-middle-pat-pmt.ts", "test-no-audio-segment.ts"],
  joined: { "dash-608-captions.mp4": ["dash-608-captions-init.mp4", "dash-608-captions-seg.m4s"], "malformed-sei.mp4": ["malformed-sei-init.mp4", "malformed-sei.m4s"] },
} as const;
/**
 * mux.js's Sintel captions carried through an ffmpeg re-encode (libx264 writes the decoded frames' A/53 side data
 * back as SEI with -a53cc 1, and drops it with -a53cc 0) into a progressive MP4 and a Matroska file: containers
 * mux.js's files do not cover. The captions are the original's; the files are made here.
 */
export const reencodedFiles = ["reencoded/a53cc.mp4", "reencoded/a53cc.mkv", "reencoded/no-cc.mp4"] as const;

function ensureReencodedFiles(dir: string, segments: string): void {
  const source = join(segments, "sintel-captions.ts");
  makeMissing(join(dir, "reencoded"), reencodedFiles.map((f) => f.slice("reencoded/".length)), (file, partial) =>
    execFileSync(ffmpeg, ["-v", "error", "-y", "-i", source, "-c:v", "libx264", "-preset", "veryfast", "-a53cc", file.startsWith("no-") ? "0" : "1",
      "-c:a", "copy", ...(file.endsWith(".mkv") ? ["-f", "matroska"] : ["-movflags", "+faststart", "-f", "mp4"]), partial]));
}

/** mux.js's captured CEA-608 + CEA-708 constructs in the SEI of a clip made here (testkit/cea-packet-stream.ts). */
export const capturedFiles = ["captured/mixed-608-708.ts"] as const;

/** mux.js's WebVTT-in-MP4 pair, joined. */
export const muxWebvtt = { "test-webvtt.mp4": ["test-webvtt-init.mp4", "test-webvtt.m4s"] } as const;

/** Packager runs: each writes a folder of files (media, DASH manifest, HLS master and media playlists). */
export const packagedSets = ["cenc", "cbcs", "cens", "cbc1", "langs", "segmented"] as const;
export type PackagedSet = (typeof packagedSets)[number];
/** The clear set's media files. */
export const langsFiles = ["video.mp4", "audio-en.mp4", "audio-fr.mp4", "audio-desc.mp4", "text-es.mp4"] as const;
/** The encrypted media files of each encrypted set. */
export const encryptedFiles = ["cenc/video.mp4", "cenc/audio.mp4", "cbcs/video.mp4", "cbcs/audio.mp4", "cens/video.mp4", "cbc1/video.mp4"] as const;

function muxSegments(repoRoot: string): string {
  const dir = join(repoRoot, "node_modules", "mux.js", "test", "segments");
  if (!existsSync(dir)) throw new Error(`made-by-others fixtures missing: ${dir} (did a mux.js update drop its test segments?)`);
  return dir;
}

function packagerBinary(repoRoot: string): string {
  const bin = join(repoRoot, "node_modules", "shaka-packager", "bin", `packager-${process.platform === "darwin" ? "osx" : process.platform}-${process.arch}`);
  if (!existsSync(bin)) throw new Error(`shaka-packager binary missing: ${bin}`);
  return bin;
}

/** Packager arguments per set, run in the set's folder; the clear inputs are in the parent folder. */
function packagerArgs(set: PackagedSet): string[] {
  const { keyId, key } = testKey;
  const drm = (scheme: string, systems: string) => ["--protection_scheme", scheme, "--enable_raw_key_encryption", "--keys", `label=:key_id=${keyId}:key=${key}`,
    "--protection_systems", systems, "--clear_lead", "0"];
  const av = ["in=../clip.mp4,stream=video,output=video.mp4,playlist_name=video.m3u8", "in=../clip.mp4,stream=audio,output=audio.mp4,playlist_name=audio.m3u8,lang=en"];
  const manifests = ["--mpd_output", "manifest.mpd", "--hls_master_playlist_output", "master.m3u8"];
  if (set === "cenc") return [...av, ...drm("cenc", "Widevine,PlayReady"), ...manifests];
  if (set === "cbcs") return [...av, ...drm("cbcs", "Widevine,PlayReady,FairPlay"), ...manifests];
  // Live-profile output: an init segment (moov with the pssh boxes) and 2 s media segments (moof with senc only).
  if (set === "segmented") {
    return ["in=../clip.mp4,stream=video,init_segment=video-init.mp4,segment_template=video-$Number$.m4s", ...drm("cbcs", "Widevine,PlayReady"),
      "--segment_duration", "2", "--mpd_output", "manifest.mpd"];
  }
  // The two schemes no browser's EME takes, video only (ffmpeg 5.1, the check that the encryption is real, cannot
  // decrypt their audio), and DASH only (HLS has no way to name them).
  if (set === "cens" || set === "cbc1") return ["in=../clip.mp4,stream=video,output=video.mp4", ...drm(set, "Widevine,PlayReady"), "--mpd_output", "manifest.mpd"];
  return [
    "in=../clip.mp4,stream=video,output=video.mp4,playlist_name=video.m3u8",
    "in=../clip.mp4,stream=audio,output=audio-en.mp4,playlist_name=audio-en.m3u8,lang=en,hls_group_id=audio,hls_name=English",
    "in=../fr.m4a,stream=audio,output=audio-fr.mp4,playlist_name=audio-fr.m3u8,lang=fr,hls_group_id=audio,hls_name=Francais",
    "in=../desc.m4a,stream=audio,output=audio-desc.mp4,playlist_name=audio-desc.m3u8,lang=en,hls_group_id=audio,hls_name=Described,"
      + "dash_roles=description,hls_characteristics=public.accessibility.describes-video",
    "in=../es.vtt,stream=text,output=text-es.mp4,playlist_name=text-es.m3u8,lang=es,hls_group_id=subs,hls_name=Espanol",
    ...manifests,
  ];
}

/**
 * Matroska with four audio tracks and two subtitle tracks whose languages and flags mkvmerge wrote: English
 * (original, default), French, English audio description (visual-impaired flag), English commentary; Spanish
 * forced subtitles and English subtitles for the deaf (hearing-impaired flag).
 */
export const flaggedFiles = ["flags/mkvmerge.mkv"] as const;

function ensureFlaggedFiles(dir: string): void {
  const flags = join(dir, "flags");
  const run = (args: string[]) => execFileSync(ffmpeg, ["-v", "error", "-y", ...args], { cwd: flags });
  const tones = ["a440.mka", "a550.mka", "a660.mka", "a770.mka"];
  makeMissing(flags, ["v.mkv", ...tones, "es.srt", "en.srt"], (file, partial) => {
    if (file.endsWith(".srt")) return writeFileSync(partial, `1\n00:00:00,000 --> 00:00:01,000\n${file === "es.srt" ? "Hola" : "[music] Hello"}\n`);
    if (file === "v.mkv") return run(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-t", "3", "-c:v", "libx264", "-f", "matroska", partial]);
    run(["-f", "lavfi", "-i", `sine=f=${file.slice(1, 4)}`, "-t", "3", "-c:a", "libopus", "-f", "matroska", partial]);
  });
  makeMissing(flags, ["mkvmerge.mkv"], (_, partial) => mkvmerge(["--quiet", "-o", partial, "v.mkv",
    "--language", "0:en", "--original-flag", "0:1", "--default-track-flag", "0:1", "a440.mka",
    "--language", "0:fr", "--default-track-flag", "0:0", "a550.mka",
    "--language", "0:en", "--visual-impaired-flag", "0:1", "--default-track-flag", "0:0", "--track-name", "0:Audio description", "a660.mka",
    "--language", "0:en", "--commentary-flag", "0:1", "--default-track-flag", "0:0", "a770.mka",
    "--language", "0:es", "--forced-display-flag", "0:1", "es.srt",
    "--language", "0:en", "--hearing-impaired-flag", "0:1", "--default-track-flag", "0:0", "en.srt"], { cwd: flags }));
}

/** Runs Debian's mkvmerge, or says how to install it. */
function mkvmerge(args: string[], options: { cwd: string }): void {
  try {
    execFileSync("mkvmerge", args, { ...options, stdio: ["ignore", "ignore", "pipe"] });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new Error("mkvmerge is missing: apt-get install mkvtoolnix (.ci/run installs it)");
    throw e;
  }
}

/** Chapters every chaptered file gets: starts in ms, and titles (one with non-ASCII letters). */
export const chapterPlan = [
  { startMs: 0, endMs: 1500, title: "Opening" },
  { startMs: 1500, endMs: 3250, title: "Zweiter Teil: Überblick" },
  { startMs: 3250, endMs: 6000, title: "Credits" },
] as const;
/** Chaptered files, each by a tool other than ffmpeg: mkvmerge (video, audio-only) and node-id3 (MP3). */
export const chapteredFiles = ["chapters/mkvmerge.mkv", "chapters/mkvmerge.mka", "chapters/node-id3.mp3"] as const;

/** The chaptered files (in `dir`/chapters): ffmpeg makes the clear media, the other tools add the chapters. */
function ensureChapteredFiles(dir: string, repoRoot: string): void {
  const chapters = join(dir, "chapters");
  const run = (args: string[]) => execFileSync(ffmpeg, ["-v", "error", "-y", ...args], { cwd: chapters });
  makeMissing(chapters, ["source.mkv", "source.m4a", "source.mp3", "chapters.xml"], (file, partial) => {
    if (file === "chapters.xml") return writeFileSync(partial, matroskaChapterXml());
    const audio = ["-f", "lavfi", "-i", "sine=f=440", "-t", "6"];
    if (file === "source.mkv") run(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", ...audio, "-t", "6", "-c:v", "libx264", "-c:a", "aac", "-f", "matroska", partial]);
    else if (file === "source.m4a") run([...audio, "-c:a", "aac", "-f", "mp4", partial]);
    else run([...audio, "-c:a", "libmp3lame", "-f", "mp3", partial]);
  });
  makeMissing(chapters, chapteredFiles.map((f) => f.slice("chapters/".length)), (file, partial) => {
    if (file === "node-id3.mp3") {
      const id3 = createRequire(join(repoRoot, "package.json"))("node-id3") as { write(tags: object, b: Buffer): Buffer | Error };
      const ids = chapterPlan.map((_, i) => `chp${i}`);
      const tagged = id3.write({
        title: "Chaptered", tableOfContents: [{ elementID: "toc", isOrdered: true, elements: ids }],
        chapter: chapterPlan.map((c, i) => ({ elementID: ids[i], startTimeMs: c.startMs, endTimeMs: c.endMs, tags: { title: c.title } })),
      }, readFileSync(join(chapters, "source.mp3")));
      if (tagged instanceof Error) throw tagged;
      return writeFileSync(partial, tagged);
    }
    const source = file.endsWith(".mkv") ? "source.mkv" : "source.m4a";
    mkvmerge(["--quiet", "-o", partial, "--chapters", "chapters.xml", source], { cwd: chapters });
  });
}

/** The chapter plan as a Matroska chapter file for mkvmerge. */
function matroskaChapterXml(): string {
  const time = (ms: number) => `00:00:${String(Math.floor(ms / 1000)).padStart(2, "0")}.${String(ms % 1000).padStart(3, "0")}000000`;
  const atoms = chapterPlan.map((c) => `    <ChapterAtom>\n      <ChapterTimeStart>${time(c.startMs)}</ChapterTimeStart>\n      <ChapterTimeEnd>${time(c.endMs)}</ChapterTimeEnd>\n`
    + `      <ChapterDisplay>\n        <ChapterString>${c.title}</ChapterString>\n        <ChapterLanguage>eng</ChapterLanguage>\n      </ChapterDisplay>\n    </ChapterAtom>\n`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE Chapters SYSTEM "matroskachapters.dtd">\n<Chapters>\n  <EditionEntry>\n${atoms.join("")}  </EditionEntry>\n</Chapters>\n`;
}

/** Makes what `dir` lacks (each piece whole or not at all; a few seconds when nothing is there). Returns `dir`. */
export function ensureOthersTrackFixtures(dir: string, repoRoot: string): string {
  mkdirSync(dir, { recursive: true });
  const segments = muxSegments(repoRoot);
  const link = join(dir, "muxjs");
  if (!isLink(link)) {
    rmSync(link, { recursive: true, force: true });
    symlinkSync(segments, link, "dir");
  }
  const joined = { ...muxCaptionFiles.joined, ...muxWebvtt } as Record<string, readonly string[]>;
  makeMissing(join(dir, "joined"), Object.keys(joined), (file, partial) =>
    writeFileSync(partial, Buffer.concat(joined[file]!.map((part) => readFileSync(join(segments, part))))));
  const packaged = join(dir, "packaged");
  const run = (args: string[]) => execFileSync(ffmpeg, ["-v", "error", "-y", ...args], { cwd: packaged });
  makeMissing(packaged, ["clip.mp4", "fr.m4a", "desc.m4a", "es.vtt"], (file, partial) => {
    if (file === "clip.mp4") {
      run(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-f", "lavfi", "-i", "sine=f=440", "-t", "4", "-map", "0:v", "-map", "1:a",
        "-c:v", "libx264", "-g", "10", "-c:a", "aac", "-f", "mp4", partial]);
    } else if (file === "es.vtt") {
      writeFileSync(partial, "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nHola\n\n00:00:02.000 --> 00:00:03.500\nMundo\n");
    } else {
      run(["-f", "lavfi", "-i", `sine=f=${file === "fr.m4a" ? 660 : 880}`, "-t", "4", "-c:a", "aac", "-f", "mp4", partial]);
    }
  });
  const packager = packagerBinary(repoRoot);
  makeMissing(packaged, packagedSets, (set, partial) => {
    mkdirSync(partial, { recursive: true });
    execFileSync(packager, packagerArgs(set), { cwd: partial, stdio: ["ignore", "ignore", "pipe"] });
    // What a player appends: the init segment, then the first media segment (for ffmpeg's decryption check).
    if (set === "segmented") writeFileSync(join(partial, "joined.mp4"), Buffer.concat(["video-init.mp4", "video-1.m4s"].map((f) => readFileSync(join(partial, f)))));
  });
  ensureReencodedFiles(dir, segments);
  makeMissing(join(dir, "captured"), ["mixed-608-708.ts"], (_, partial) =>
    writeCaptionedTs(muxCaptionPackets(repoRoot, "mixed-608-708-captions"), partial, join(dir, "captured")));
  ensureChapteredFiles(dir, repoRoot);
  ensureFlaggedFiles(dir);
  return dir;
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** ffprobe's and mux.js's readings of a caption-carrying candidate. */
export interface CaptionReading {
  /** Decoded video frames whose side data holds A/53 (CEA-608/708) captions, per ffprobe. */
  ffprobeCaptionFrames: number;
  /** ffprobe's stream-level flag (ffprobe 5.1 sets it only when the frames it decodes while probing carry captions). */
  ffprobeClosedCaptions: boolean;
  /** Caption cues mux.js parses out of the file, and the 608 channels they are on (absent: mux.js reads only TS and fMP4). */
  muxCues?: number;
  muxChannels?: string[];
}

/** mp4box.js's reading of an encrypted file's boxes. */
export interface BoxReading {
  tracks: { entry: string; handler: string; language: string; original?: string; scheme?: string; pattern?: [number, number] }[];
  /** pssh system IDs (hex) in the moov, in file order. */
  psshSystemIds: string[];
}

export interface ProbedStream {
  type: string;
  codec: string;
  language?: string;
  default: boolean;
  /** The other dispositions ffprobe sets (forced, hearing_impaired, visual_impaired, comment, original, ...). */
  dispositions: string[];
}

export interface HlsRendition {
  type: "AUDIO" | "SUBTITLES" | "CLOSED-CAPTIONS";
  language?: string;
  default: boolean;
  forced?: boolean;
  characteristics?: string;
  instreamId?: string;
}

/** HLS masters whose renditions m3u8-parser reads: one of its own fixtures (closed captions) and the packager's. */
export const hlsMasters = {
  "others/m3u8/master-fmp4.m3u8": ["node_modules", "m3u8-parser", "test", "fixtures", "integration", "master-fmp4.m3u8"],
  "others-tracks/packaged/langs/master.m3u8": ["test", ".fixtures", "made-by-others-tracks", "others-tracks", "packaged", "langs", "master.m3u8"],
  "others-tracks/packaged/cbcs/master.m3u8": ["test", ".fixtures", "made-by-others-tracks", "others-tracks", "packaged", "cbcs", "master.m3u8"],
} as const;

interface M3u8Parser { push(text: string): void; end(): void; manifest: { mediaGroups?: Record<string, Record<string, Record<string, Record<string, unknown>>>> } }

/** m3u8-parser's renditions of one master playlist. */
function hlsRenditions(repoRoot: string, path: string): HlsRendition[] {
  const { Parser } = createRequire(join(repoRoot, "package.json"))("m3u8-parser") as { Parser: new () => M3u8Parser };
  const parser = new Parser();
  parser.push(readFileSync(path, "utf8"));
  parser.end();
  const out: HlsRendition[] = [];
  for (const type of ["AUDIO", "SUBTITLES", "CLOSED-CAPTIONS"] as const) {
    for (const group of Object.values(parser.manifest.mediaGroups?.[type] ?? {})) {
      for (const r of Object.values(group)) {
        out.push({
          type, default: r.default === true,
          ...(typeof r.language === "string" ? { language: r.language } : {}),
          ...(typeof r.forced === "boolean" ? { forced: r.forced } : {}),
          ...(typeof r.characteristics === "string" ? { characteristics: r.characteristics } : {}),
          ...(typeof r.instreamId === "string" ? { instreamId: r.instreamId } : {}),
        });
      }
    }
  }
  return out;
}

/** What mpd-parser reads from a DASH manifest: audio and subtitle groups, and the first playlist's protection. */
export interface DashReading {
  audio: { language?: string; description: boolean }[];
  subtitles: { language?: string }[];
  scheme?: string;
  keySystems: string[];
}

interface MpdGroup { language?: string; playlists?: { contentProtection?: Record<string, { attributes?: { value?: string } }> }[] }
interface MpdManifest { mediaGroups?: Record<string, Record<string, Record<string, MpdGroup>>>; playlists?: { contentProtection?: Record<string, { attributes?: { value?: string } }> }[] }

/** mpd-parser's reading (it names a Role description group "<lang> (description)", and protection by EME key system). */
async function dashReading(path: string): Promise<DashReading> {
  const { parse } = await import("mpd-parser") as unknown as { parse(text: string, options: { manifestUri: string }): MpdManifest };
  const m = parse(readFileSync(path, "utf8"), { manifestUri: "http://origin.invalid/manifest.mpd" });
  const groups = (type: string) => Object.values(m.mediaGroups?.[type] ?? {}).flatMap((g) => Object.entries(g));
  const protection = m.playlists?.[0]?.contentProtection ?? {};
  return {
    audio: groups("AUDIO").map(([name, g]) => ({ ...(g.language ? { language: g.language } : {}), description: name.endsWith("(description)") })),
    subtitles: groups("SUBTITLES").map(([, g]) => (g.language ? { language: g.language } : {})),
    ...(protection.mp4protection?.attributes?.value ? { scheme: protection.mp4protection.attributes.value } : {}),
    keySystems: Object.keys(protection).filter((k) => k !== "mp4protection").sort(),
  };
}

/** The packager's DASH manifests mpd-parser reads. */
export const dashManifests = ["langs", "cenc", "cbcs", "cens", "cbc1", "segmented"].map((set) => `packaged/${set}/manifest.mpd`);

export interface OthersTracksContext {
  captions: Record<string, CaptionReading>;
  /** Every stream ffprobe lists per file (type, codec, language, default disposition), for the text and audio comparisons. */
  streams: Record<string, ProbedStream[]>;
  boxes: Record<string, BoxReading>;
  /** m3u8-parser's media groups of HLS masters (by their /media path): one entry per rendition, in group order. */
  hls: Record<string, HlsRendition[]>;
  /** mpd-parser's reading of the packager's DASH manifests (by their /media path). */
  dash: Record<string, DashReading>;
  /** The packager's segmented cbcs output: mp4box.js's reading of the init segment and of the first media segment. */
  segmented: { init: BoxReading; segmentBoxes: string[]; segmentTrafBoxes: string[]; joinedDecrypts: { withKeyEqualsClear: boolean; withoutKeyDiffers: boolean } };
  /** ffprobe's chapters (start in seconds, title) per chaptered file. */
  chapters: Record<string, { start: number; title?: string }[]>;
  /** Per encrypted file: ffmpeg's decoded frames with the key are the clear clip's; without it they are not. */
  decrypts: Record<string, { withKeyEqualsClear: boolean; withoutKeyDiffers: boolean }>;
}

/** The readings test/worker/made-by-others-tracks.test.ts compares the service with. */
export async function othersTrackReadings(dir: string, repoRoot: string): Promise<OthersTracksContext> {
  const captionFiles = [...muxCaptionFiles.ts.map((f) => `muxjs/${f}`), ...Object.keys(muxCaptionFiles.joined).map((f) => `joined/${f}`), ...reencodedFiles,
    ...capturedFiles];
  const captions = await mapLimit(captionFiles, 3, (file) => captionReading(dir, file, repoRoot));
  const streamFiles = [...captionFiles, ...Object.keys(muxWebvtt).map((f) => `joined/${f}`),
    ...langsFiles.map((f) => `packaged/langs/${f}`), ...flaggedFiles,
    ...encryptedFiles.map((f) => `packaged/${f}`)];
  const streams = await mapLimit(streamFiles, 3, async (file) => {
    const probe = await ffprobeJson(join(dir, file), ["-show_streams"]) as { streams: { codec_type?: string; codec_name?: string; tags?: { language?: string }; disposition?: Record<string, number> }[] };
    return probe.streams.map((s): ProbedStream => ({ type: s.codec_type ?? "", codec: s.codec_name ?? "", ...(s.tags?.language ? { language: s.tags.language } : {}),
      default: s.disposition?.default === 1,
      dispositions: Object.entries(s.disposition ?? {}).filter(([name, on]) => on === 1 && name !== "default").map(([name]) => name) }));
  });
  const chapters = await mapLimit(chapteredFiles, 3, async (file) => {
    const probe = await ffprobeJson(join(dir, file), ["-show_chapters"]) as { chapters?: { start_time: string; tags?: { title?: string } }[] };
    return (probe.chapters ?? []).map((c) => ({ start: Number(c.start_time), ...(c.tags?.title ? { title: c.tags.title } : {}) }));
  });
  const clear = await frameHashes(join(dir, "packaged", "clip.mp4"), "v:0");
  const clearAudio = await frameHashes(join(dir, "packaged", "clip.mp4"), "a:0");
  const decrypts = await mapLimit(encryptedFiles, 2, async (file) => {
    const path = join(dir, "packaged", file);
    const want = file.endsWith("video.mp4") ? clear : clearAudio;
    const withKey = await frameHashes(path, "0", ["-decryption_key", testKey.key]).catch(() => "");
    const withoutKey = await frameHashes(path, "0").catch(() => "");
    // The packager's audio starts one AAC frame earlier (it keeps the encoder's priming frame that the clip's edit
    // list hides): the clip's frames must all be there, in order.
    return { withKeyEqualsClear: want.length > 0 && (withKey === want || withKey.endsWith(`\n${want}`)), withoutKeyDiffers: !withoutKey.includes(want) };
  });
  const segmentedDir = join(dir, "packaged", "segmented");
  const joinedWith = await frameHashes(join(segmentedDir, "joined.mp4"), "0", ["-decryption_key", testKey.key]).catch(() => "");
  const joinedWithout = await frameHashes(join(segmentedDir, "joined.mp4"), "0").catch(() => "");
  const segment = segmentBoxes(join(segmentedDir, "video-1.m4s"));
  const segmented = {
    init: boxReading(join(segmentedDir, "video-init.mp4")), ...segment,
    // The first segment's frames are the clip's first frames.
    joinedDecrypts: { withKeyEqualsClear: joinedWith.length > 0 && clear.startsWith(`${joinedWith}\n`), withoutKeyDiffers: !clear.startsWith(`${joinedWithout}\n`) },
  };
  const dash = await mapLimit(dashManifests, 3, (f) => dashReading(join(dir, f)));
  return {
    dash: Object.fromEntries(dashManifests.map((f, i) => [`others-tracks/${f}`, dash[i]!])),
    hls: Object.fromEntries(Object.entries(hlsMasters).map(([key, parts]) => [key, hlsRenditions(repoRoot, join(repoRoot, ...parts))])),
    segmented,
    captions: Object.fromEntries(captionFiles.map((f, i) => [f, captions[i]!])),
    streams: Object.fromEntries(streamFiles.map((f, i) => [f, streams[i]!])),
    // mp4box.js reads every packaged file (it throws on mux.js's WebVTT file, whose elng box is empty: ffprobe's reading only there).
    boxes: Object.fromEntries([...encryptedFiles, ...langsFiles.map((f) => `langs/${f}`)].map((f) => [f, boxReading(join(dir, "packaged", f))])),
    decrypts: Object.fromEntries(encryptedFiles.map((f, i) => [f, decrypts[i]!])),
    chapters: Object.fromEntries(chapteredFiles.map((f, i) => [f, chapters[i]!])),
  };
}

/** ffmpeg's MD5s of one stream's decoded frames, one a line. */
async function frameHashes(path: string, stream: string, before: string[] = []): Promise<string> {
  const { stdout } = await execFileAsync(ffmpeg, ["-v", "error", ...before, "-i", path, "-map", `0:${stream}`, "-f", "framemd5", "-"], { maxBuffer: 16 * 1024 * 1024 });
  return stdout.split("\n").filter((l) => l && !l.startsWith("#")).map((l) => l.split(",").at(-1)!.trim()).join("\n");
}

async function captionReading(dir: string, file: string, repoRoot: string): Promise<CaptionReading> {
  const path = join(dir, file);
  const frames = await ffprobeJson(path, ["-select_streams", "v:0", "-show_frames", "-show_entries", "frame=side_data_list"]) as
    { frames?: { side_data_list?: { side_data_type?: string }[] }[] };
  const streams = await ffprobeJson(path, ["-select_streams", "v:0", "-show_streams"]) as { streams: { closed_captions?: number }[] };
  const mux = file.startsWith("reencoded/") ? {}
    : muxCaptions(repoRoot, file.startsWith("joined/") ? (muxCaptionFiles.joined as Record<string, readonly string[]>)[file.slice(7)]! : undefined, path);
  return {
    ffprobeCaptionFrames: (frames.frames ?? []).filter((f) => f.side_data_list?.some((s) => s.side_data_type === "ATSC A53 Part 4 Closed Captions")).length,
    ffprobeClosedCaptions: streams.streams[0]?.closed_captions === 1,
    ...mux,
  };
}

interface MuxCaption { stream: string }
interface MuxJs {
  mp4: {
    Transmuxer: new (options: object) => { on(event: "data", f: (segment: { captions?: MuxCaption[] }) => void): void; push(b: Uint8Array): void; flush(): void };
    CaptionParser: new () => { init(): void; parse(b: Uint8Array, ids: number[], scales: Record<number, number>): { captions: MuxCaption[] } | null };
    probe: { videoTrackIds(init: Uint8Array): number[]; timescale(init: Uint8Array): Record<number, number> };
  };
}

/** mux.js's captions: its transmuxer for a transport stream, its caption parser for an init + media segment. */
function muxCaptions(repoRoot: string, parts: readonly string[] | undefined, path: string): { muxCues: number; muxChannels: string[] } {
  const muxjs = createRequire(join(repoRoot, "package.json"))("mux.js") as MuxJs;
  const cues: MuxCaption[] = [];
  if (parts) {
    const segments = muxSegments(repoRoot);
    const [init, media] = parts.map((p) => new Uint8Array(readFileSync(join(segments, p)))) as [Uint8Array, Uint8Array];
    const parser = new muxjs.mp4.CaptionParser();
    parser.init();
    cues.push(...(parser.parse(media, muxjs.mp4.probe.videoTrackIds(init), muxjs.mp4.probe.timescale(init))?.captions ?? []));
  } else {
    const transmuxer = new muxjs.mp4.Transmuxer({ keepOriginalTimestamps: true });
    transmuxer.on("data", (segment) => cues.push(...(segment.captions ?? [])));
    transmuxer.push(new Uint8Array(readFileSync(path)));
    transmuxer.flush();
  }
  return { muxCues: cues.length, muxChannels: [...new Set(cues.map((c) => c.stream))].sort() };
}

interface Mp4BoxTrak {
  mdia: { hdlr: { handler: string }; mdhd: { languageString?: string }; minf: { stbl: { stsd: { entries: Mp4BoxEntry[] } } } };
}
interface Mp4BoxEntry {
  type: string;
  sinf?: Mp4BoxSinf;
  sinfs?: Mp4BoxSinf[];
}
interface Mp4BoxSinf {
  frma?: { data_format: string }; schm?: { scheme_type: string }; schi?: { tenc?: { default_crypt_byte_block: number; default_skip_byte_block: number } };
}

/** mp4box.js's view of the moov: each track's sample entry, and for encrypted ones frma, schm and tenc; the pssh boxes. */
export function boxReading(path: string): BoxReading {
  const bytes = readFileSync(path);
  const file = createFile();
  file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer, 0));
  file.flush();
  const moov = file.moov as unknown as { traks: Mp4BoxTrak[]; psshs?: { system_id: string }[] } | undefined;
  if (!moov) throw new Error(`mp4box.js found no moov in ${path}`);
  return {
    tracks: moov.traks.map((t) => {
      const entry = t.mdia.minf.stbl.stsd.entries[0]!;
      const sinf = entry.sinfs?.[0] ?? entry.sinf;
      const tenc = sinf?.schi?.tenc;
      return {
        entry: entry.type, handler: t.mdia.hdlr.handler, language: t.mdia.mdhd.languageString ?? "",
        ...(sinf ? { original: sinf.frma?.data_format, scheme: sinf.schm?.scheme_type } : {}),
        ...(typeof tenc?.default_crypt_byte_block === "number" ? { pattern: [tenc!.default_crypt_byte_block, tenc!.default_skip_byte_block] as [number, number] } : {}),
      };
    }),
    psshSystemIds: (moov.psshs ?? []).map((p) => p.system_id),
  };
}

/** mp4box.js's top-level boxes of a media segment, and the boxes of its first moof's first traf. */
function segmentBoxes(path: string): { segmentBoxes: string[]; segmentTrafBoxes: string[] } {
  const bytes = readFileSync(path);
  const file = createFile();
  file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer, 0));
  file.flush();
  const parsed = file as unknown as { boxes: { type: string }[]; moofs?: { trafs?: { boxes?: { type: string }[] }[] }[] };
  return { segmentBoxes: parsed.boxes.map((b) => b.type), segmentTrafBoxes: (parsed.moofs?.[0]?.trafs?.[0]?.boxes ?? []).map((b) => b.type) };
}

/**
 * Everything the worker set-up needs: makes what is missing, then reads it. The readings (ffprobe decoding every
 * frame, ffmpeg decrypting) take seconds, so they are kept beside the files under a digest of the files and of this
 * module, and read again only when either changes.
 */
export async function prepareOthersTracks(repoRoot: string): Promise<OthersTracksContext> {
  const dir = ensureOthersTrackFixtures(othersTracksDir(repoRoot), repoRoot);
  const hash = createHash("sha256").update(readFileSync(import.meta.filename));
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (!name.startsWith("readings-") && !name.startsWith("partial-")) hash.update(relative(dir, path)).update(readFileSync(path));
    }
  };
  walk(dir);
  for (const parts of Object.values(hlsMasters)) hash.update(readFileSync(join(repoRoot, ...parts)));
  const file = `readings-${hash.digest("hex").slice(0, 16)}.json`;
  if (existsSync(join(dir, file))) return JSON.parse(readFileSync(join(dir, file), "utf8")) as OthersTracksContext;
  const readings = await othersTrackReadings(dir, repoRoot);
  for (const old of readdirSync(dir).filter((n) => n.startsWith("readings-"))) rmSync(join(dir, old), { force: true });
  makeMissing(dir, [file], (_, partial) => writeFileSync(partial, JSON.stringify(readings)));
  return readings;
}
