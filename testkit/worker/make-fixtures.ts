/**
 * The Worker tests' generated media, made aside: in a child process at the lowest CPU priority, while the earlier
 * groups' tests run (the Worker's files run in a later group; test/worker/fixtures-ready.ts holds each of them until
 * all is made). On a clean clone this is about a minute of ffmpeg, ImageMagick and exiftool on both cores; awaited
 * in the set-up it kept every test waiting, and at normal priority beside the first groups it slowed them as much.
 * At the lowest priority it takes only the time they leave idle (one core, while the time-bound runner files run
 * one at a time).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { setPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { descendants } from "../start-service.ts";
import { ensureMediaFixtures, factFixtures } from "../media-fixtures.ts";
import { ensureHeadFixtures, headFixtureFiles } from "../head-fixtures.ts";
import { ensureHostileMp4s } from "../hostile-mp4.ts";
import { ensureFormatFixtures } from "../image-format-fixtures.ts";
import { containerFixtures, containerReference, ensureContainerFixtures, type ContainerReference } from "../container-fixtures.ts";
import { ensureDepthFixtures } from "../depth-fixtures.ts";
import { ffprobeReference, mapLimit, type FfprobeReference } from "../ffprobe-reference.ts";
import { generateStreamFixtures } from "../stream-fixtures.ts";
import { ensureLongtailFixtures } from "../longtail-image-fixtures.ts";
import { ensureLongtailAvFixtures } from "../longtail-av-fixtures.ts";
import { ensureLongtailMoreFixtures } from "../longtail-more-fixtures.ts";
import { ensureTrackFixtures } from "../track-fixtures.ts";
import { ensureC2paFixtures } from "../c2pa-fixtures.ts";
import { ensureFragmentFixtures } from "../fragment-fixtures.ts";
import { ensureSidecarFixtures } from "../c2pa-sidecar-fixtures.ts";
import { ensureSignedC2paFixtures, signedC2paReadings } from "../c2pa-signed-fixtures.ts";
import { prepareCameraFiles } from "../camera-files.ts";
import { ensureStreamChapterFixtures } from "../stream-chapter-fixtures.ts";
import { ensureMoreProvenanceFixtures, exiftoolReadingOf, moovLastFixtures, stillAndAudioFixtures } from "../provenance-more-fixtures.ts";
import { ensureProvenanceFixtures, exiftoolReading, taggedFixtures, type ExiftoolReading } from "../provenance-fixtures.ts";
import { silentFlac, writeOnce } from "../hostile-inputs.ts";
import { prepareOthers, type OthersContext } from "../made-by-others.ts";
import { othersTracksServeDir, prepareOthersTracks } from "../others-tracks.ts";
import { runFixtureLanes, runTsChild } from "../fixture-lanes.ts";
import { workerLaneOrder } from "./fixture-lanes.ts";
import type { WorkerFixtureFacts } from "./fixture-facts.ts";

/** ffprobe processes at once while the set-up reads its references. */
const probeConcurrency = 4;
/** Fixture lanes at once: three keep two cores busy while the small builders mostly start processes. */
const fixtureLanes = 3;
/** The lowest priority (nice 19): the child and every process it starts take only CPU time nobody else wants. */
const asidePriority = 19;

export interface MadeFixtures {
  facts: WorkerFixtureFacts;
  serveDirs: string[];
}

/**
 * The generated media and the reference tools' readings of them; `root` is the test folder. `serveDirs` are the
 * folders the loopback origin serves them from.
 */
export async function makeFixtures(root: string): Promise<MadeFixtures> {
  const serveDirs: string[] = [];
  // Every generated file, made a few lanes at once; the builders below then find them on disk and only name them.
  await runFixtureLanes("testkit/worker/fixture-lanes.ts", workerLaneOrder, fixtureLanes);
  const mediaDir = ensureMediaFixtures(join(root, ".fixtures", "media"));
  ensureHeadFixtures(mediaDir, join(root, "fixtures", "images"));
  ensureHostileMp4s(mediaDir);
  ensureDepthFixtures(mediaDir);
  // 0.9 MB of FLAC declaring ten hours of 8-channel audio (test/worker/jobs-and-runner/hostile-retries.cases.ts).
  writeOnce(join(mediaDir, "ten-hours-8ch.flac"), () => silentFlac({ hours: 10, channels: 8, sampleRate: 48000 }));
  const factFiles = [...Object.keys(factFixtures), "jpeg-orientation-6.jpg", ...headFixtureFiles];
  // ffprobe's readings, a few at once (sequential ffprobe runs were most of this set-up's time).
  const facts = await mapLimit(factFiles, probeConcurrency, (file) =>
    ffprobeReference(file.endsWith(".jpg") ? join(root, "fixtures", "images") : mediaDir, file));
  // HLS/DASH streams made by ffmpeg, served as /media/hls/master.m3u8 etc.
  const streamsDir = await generateStreamFixtures(join(root, ".fixtures", "streams"));
  // One file per image class and MPEG-TS/PS without video (test/worker/files-and-facts/format-recognition.cases.ts).
  const formatsDir = ensureFormatFixtures(join(root, ".fixtures", "formats"));
  // One file per container class fast reads from headers, and ffprobe's reading of each.
  const containersDir = ensureContainerFixtures(join(root, ".fixtures", "containers"));
  const containers = await mapLimit(containerFixtures, probeConcurrency, ({ file }) => containerReference(containersDir, file));
  // Damaged pictures, rolled-over and cut MPEG-TS, fMP4 segments, FLC (test/worker/files-and-facts/longtail.cases.ts).
  const longtailDirs = [ensureLongtailFixtures(join(root, ".fixtures", "longtail")), ensureLongtailAvFixtures(join(root, ".fixtures", "longtail-av"))];
  longtailDirs.push(ensureLongtailMoreFixtures(join(root, ".fixtures", "longtail-more"))); // raw H.264/HEVC, non-PCM WAVE, Ogg video
  // Subtitle, audio-language, chapter, caption and encrypted files (test/worker/media-facts/tracks.cases.ts).
  const tracksDir = join(root, ".fixtures", "tracks");
  ensureTrackFixtures(tracksDir);
  // Capture, rights and AI-declaration tags written by exiftool, and exiftool's own reading of them.
  const provenanceDir = ensureProvenanceFixtures(join(root, ".fixtures", "provenance"));
  const provenanceFacts = Object.fromEntries(taggedFixtures.map(({ file }) => [file, exiftoolReading(provenanceDir, file)]));
  // Hostile Content Credentials made from C2PA's own signed test image (test/fixtures/c2pa).
  ensureC2paFixtures(join(provenanceDir, "c2pa"), join(root, "fixtures", "c2pa"), join(provenanceDir, "untagged.jpg"));
  const moreProvenanceDir = ensureMoreProvenanceFixtures(join(root, ".fixtures", "provenance-more"));
  // Sidecar C2PA manifest stores and a JPEG whose XMP names one (test/worker/provenance-files/c2pa-sidecar.cases.ts).
  const sidecarDir = ensureSidecarFixtures(join(root, ".fixtures", "c2pa-sidecar"), join(root, "fixtures", "c2pa"), join(provenanceDir, "c2pa"), join(provenanceDir, "untagged.jpg"));
  // An HLS master naming a WebVTT chapter list (test/worker/media-facts/segment-protection.cases.ts).
  const streamChaptersDir = ensureStreamChapterFixtures(join(root, ".fixtures", "stream-chapters"));
  // Media segments with pssh boxes in their moof (test/worker/media-facts/segment-protection.cases.ts).
  const fragmentsDir = ensureFragmentFixtures(join(root, ".fixtures", "fragments"));
  const provenanceMoreFacts = Object.fromEntries([...moovLastFixtures, ...stillAndAudioFixtures].map(({ file }) => [file, exiftoolReadingOf(moreProvenanceDir, file)]));
  const signedC2paDir = await ensureSignedC2paFixtures(join(root, ".fixtures", "c2pa-signed"), provenanceDir);
  const signedC2pa = await signedC2paReadings(signedC2paDir, provenanceDir);
  const { serveDir: cameraDir, files: cameraFiles } = prepareCameraFiles(join(root, ".."), join(root, ".fixtures", "camera-files"));
  // Media and manifests other teams made, shipped in installed npm packages (served as /media/others/...).
  const { serveDir: othersDir, ...others } = await prepareOthers(join(root, ".."), join(root, ".fixtures", "made-by-others"));
  const othersTracks = await prepareOthersTracks(join(root, ".."));
  // In the order the origin looks a name up (the first folder that has it answers).
  serveDirs.push(mediaDir, join(root, "fixtures", "images"), join(root, "fixtures", "av"), streamsDir, formatsDir, containersDir, ...longtailDirs, tracksDir, provenanceDir, join(provenanceDir, "c2pa"), join(root, "fixtures", "c2pa"), moreProvenanceDir, fragmentsDir, sidecarDir, streamChaptersDir, othersDir, signedC2paDir, cameraDir, othersTracksServeDir(join(root, "..")));
  return { serveDirs, facts: {
    ffprobeFacts: Object.fromEntries(factFiles.map((file, i) => [file, facts[i]!])),
    containerFacts: Object.fromEntries(containerFixtures.map(({ file }, i) => [file, containers[i]!])),
    provenanceFacts,
    provenanceMoreFacts,
    signedC2pa,
    cameraFiles,
    others,
    othersTracks,
  } };
}

export interface FixturesAside {
  made: Promise<MadeFixtures>;
  /** Back to normal priority (root only; elsewhere it stays low): a test is now waiting for it. */
  hurry(): void;
}

/** makeFixtures in a child process at the lowest priority; `made` rejects with the child's error output when it fails. */
export function makeFixturesAside(root: string): FixturesAside {
  const dir = mkdtempSync(join(tmpdir(), "worker-fixtures-"));
  const out = join(dir, "made.json");
  const { child, exited } = runTsChild([import.meta.filename, root, out], "making the Worker tests' fixtures");
  const prioritize = (priority: number) => {
    for (const pid of [child.pid!, ...descendants(child.pid!)]) {
      try {
        setPriority(pid, priority);
      } catch {
        // Not allowed here (raising a priority needs root), or already gone: it runs on as it was.
      }
    }
  };
  prioritize(asidePriority);
  let hurried = false;
  const made = exited
    .then(() => JSON.parse(readFileSync(out, "utf8")) as MadeFixtures)
    .finally(() => rmSync(dir, { recursive: true, force: true }));
  return {
    made,
    hurry() {
      if (hurried || child.exitCode !== null) return;
      hurried = true;
      prioritize(0);
    },
  };
}

// Run as the child: argv is the test folder and the file to write the result to.
if (process.argv[1] === import.meta.filename) {
  const [root, out] = process.argv.slice(2) as [string, string];
  writeFileSync(out, JSON.stringify(await makeFixtures(root)));
}
