// Media and manifests made by other teams, shipped inside npm packages this repository already installs:
// - @videojs/vhs-utils test/fixtures: ~750 small files, each named by its RFC 6381 codecs string (the video.js
//   team's own truth for it). vhs-utils is only a transitive dependency (of m3u8-parser and mpd-parser), but npm
//   installs its whole published tarball, test/ folder included.
// - m3u8-parser test/fixtures/integration/*.m3u8 and mpd-parser test/manifests/*.mpd, each with the parser's own
//   expected parse in a sibling .js file.
// A missing folder is an error, never a skip: a dependency update that drops it must be noticed.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, lstatSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { runInNewContext } from "node:vm";
import { ffprobeJson, mapLimit } from "./ffprobe-reference.ts";
export { namedCodecs } from "./named-codecs.ts";

export interface OthersRoots { vhs: string; m3u8: string; mpd: string }

/** The three package folders, or an error naming the one that is missing. */
export function othersRoots(repoRoot: string): OthersRoots {
  const modules = join(repoRoot, "node_modules");
  const roots = {
    vhs: join(modules, "@videojs", "vhs-utils", "test", "fixtures"),
    m3u8: join(modules, "m3u8-parser", "test", "fixtures", "integration"),
    mpd: join(modules, "mpd-parser", "test", "manifests"),
  };
  for (const [name, dir] of Object.entries(roots)) {
    if (!existsSync(dir)) throw new Error(`made-by-others fixtures missing: ${name} folder ${dir} (did a dependency update drop its test files?)`);
  }
  return roots;
}

/**
 * A folder for the loopback origin whose entries link to the package folders, so the files are served as
 * /media/others/vhs/formats/mp4/<name>, /media/others/m3u8/<name>, /media/others/mpd/<name>.
 */
export function othersServeDir(fixturesDir: string, roots: OthersRoots): string {
  const dir = join(fixturesDir, "others");
  mkdirSync(dir, { recursive: true });
  for (const [name, target] of Object.entries(roots)) {
    const link = join(dir, name);
    if (existsSync(link) || isLink(link)) rmSync(link, { force: true });
    symlinkSync(target, link, "dir");
  }
  return fixturesDir;
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The vhs-utils media files, as paths relative to the fixtures folder (formats/<container>/<codecs>.<ext>, parsing/mkv/...). */
export function vhsMediaFiles(vhsRoot: string): string[] {
  const out: string[] = [];
  for (const group of ["formats", "parsing"]) {
    const base = join(vhsRoot, group);
    for (const sub of readdirSync(base).sort()) {
      const dir = join(base, sub);
      if (!statSync(dir).isDirectory()) continue;
      for (const file of readdirSync(dir).sort()) out.push(relative(vhsRoot, join(dir, file)));
    }
  }
  return out;
}

/** ffprobe's reading of one file: codec names and the AAC profile, video first. */
export interface OthersProbe { streams: { type: string; codec: string; profile?: string; tag?: string }[] }

export async function othersFfprobe(vhsRoot: string, files: readonly string[]): Promise<Record<string, OthersProbe>> {
  const read = await mapLimit(files, 4, async (file) => {
    const json = await ffprobeJson(join(vhsRoot, file), ["-show_streams"]).catch(() => ({ streams: [] })) as
      { streams: { codec_type?: string; codec_name?: string; profile?: string; codec_tag_string?: string }[] };
    return {
      streams: json.streams.filter((s) => s.codec_type === "video" || s.codec_type === "audio")
        .map((s) => ({ type: s.codec_type!, codec: s.codec_name ?? "", profile: s.profile, tag: s.codec_tag_string })),
    };
  });
  return Object.fromEntries(files.map((f, i) => [f, read[i]!]));
}

/** A parser's expected output (.js next to each manifest): m3u8-parser's are CommonJS, mpd-parser's ES modules. */
export function expectedParse(path: string): unknown {
  const text = readFileSync(path, "utf8").replace(/^export const parsedManifest\s*=/m, "module.exports.parsedManifest =");
  const module = { exports: {} as Record<string, unknown> };
  runInNewContext(text, { module, exports: module.exports, Date });
  return module.exports.parsedManifest ?? module.exports;
}

/** Manifests checked against the parsers' expected outputs. */
export const othersManifests = {
  m3u8: ["encrypted.m3u8", "llhls.m3u8", "llhlsDelta.m3u8", "alternateAudio.m3u8", "master.m3u8", "event.m3u8", "media.m3u8"],
  mpd: ["608-captions.mpd", "708-captions.mpd", "vtt_codecs.mpd", "multiperiod-dynamic.mpd", "audio-only.mpd", "maat_vtt_segmentTemplate.mpd"],
} as const;

/** Files ffprobe reads at set-up (a reference nobody here wrote): one per container and codec family. */
export const othersProbed = [
  "formats/mp4/avc1.4d401e,mp4a.40.2.mp4", "formats/mp4/av01.0.00M.08.0.110,mp4a.40.5.mp4", "formats/mp4/avc1.4d401e,mp4a.40.29.mp4",
  "formats/mp4/avc1.4d401e,mp4a.40.34.mp4", "formats/mp4/avc1.4d401e,mp3.mp4", "formats/mov/avc1.4d401e,ac-3.mov",
  "formats/mkv/avc1.4d401e,ac-3.mkv", "formats/mkv/avc1.4d401e,mp4a.40.29.mkv", "formats/webm/vp9,opus.webm",
  "formats/ogg/theora,vorbis.ogg", "formats/ts/hev1.1.6.L60.90,ec-3.ts", "formats/ts/mp4v.20,mp3.ts",
  "formats/mp3/mp3.mp3", "formats/flac/flac.flac",
];

export interface OthersContext {
  files: string[];
  probe: Record<string, OthersProbe>;
  expected: Record<string, unknown>;
}

/** Everything the worker set-up provides for test/worker/files-and-facts/made-by-others.cases.ts; `serveDir` goes to the origin. */
export async function prepareOthers(repoRoot: string, fixturesDir: string): Promise<OthersContext & { serveDir: string }> {
  const roots = othersRoots(repoRoot);
  const serveDir = othersServeDir(fixturesDir, roots);
  const files = vhsMediaFiles(roots.vhs);
  const probe = await othersFfprobe(roots.vhs, othersProbed);
  const expected: Record<string, unknown> = {};
  for (const name of othersManifests.m3u8) expected[name] = JSON.parse(JSON.stringify(expectedParse(join(roots.m3u8, name.replace(/\.m3u8$/, ".js")))));
  for (const name of othersManifests.mpd) expected[name] = JSON.parse(JSON.stringify(expectedParse(join(roots.mpd, name.replace(/\.mpd$/, ".js")))));
  return { serveDir, files, probe, expected };
}

