import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startFakeDoh } from "../../testkit/fake-doh.ts";
import { ensureMediaFixtures, factFixtures } from "../../testkit/media-fixtures.ts";
import { ensureHeadFixtures, headFixtureFiles } from "../../testkit/head-fixtures.ts";
import { ensureHostileMp4s } from "../../testkit/hostile-mp4.ts";
import { ensureFormatFixtures } from "../../testkit/image-format-fixtures.ts";
import { containerFixtures, containerReference, ensureContainerFixtures, type ContainerReference } from "../../testkit/container-fixtures.ts";
import { ensureDepthFixtures } from "../../testkit/depth-fixtures.ts";
import { ffprobeReference, mapLimit, type FfprobeReference } from "../../testkit/ffprobe-reference.ts";
import { generateStreamFixtures } from "../../testkit/stream-fixtures.ts";
import { startRunnerProcess } from "../../testkit/runner-process.ts";
import { startRunnerGate } from "../../testkit/runner-gate.ts";
import { startWebhookReceiver } from "../../testkit/webhook-receiver.ts";
import { startFakeOembed } from "../../testkit/fake-oembed.ts";
import { ensureLongtailFixtures } from "../../testkit/longtail-image-fixtures.ts";
import { ensureLongtailAvFixtures } from "../../testkit/longtail-av-fixtures.ts";
import { ensureLongtailMoreFixtures } from "../../testkit/longtail-more-fixtures.ts";
import { ensureTrackFixtures } from "../../testkit/track-fixtures.ts";
import { ensureC2paFixtures } from "../../testkit/c2pa-fixtures.ts";
import { ensureFragmentFixtures } from "../../testkit/fragment-fixtures.ts";
import { ensureSidecarFixtures } from "../../testkit/c2pa-sidecar-fixtures.ts";
import { ensureSignedC2paFixtures, signedC2paReadings } from "../../testkit/c2pa-signed-fixtures.ts";
import { prepareCameraFiles } from "../../testkit/camera-files.ts";
import { ensureStreamChapterFixtures } from "../../testkit/stream-chapter-fixtures.ts";
import { ensureMoreProvenanceFixtures, exiftoolReadingOf, moovLastFixtures, stillAndAudioFixtures } from "../../testkit/provenance-more-fixtures.ts";
import { ensureProvenanceFixtures, exiftoolReading, taggedFixtures, type ExiftoolReading } from "../../testkit/provenance-fixtures.ts";
import { silentFlac, writeOnce } from "../../testkit/hostile-inputs.ts";
import { prepareOthers, type OthersContext } from "../../testkit/made-by-others.ts";
import { othersTracksServeDir, prepareOthersTracks } from "../../testkit/others-tracks.ts";
import { startConnectionTrap, startGarbageServer, startLoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { runFixtureLanes } from "../../testkit/fixture-lanes.ts";
import { workerLaneOrder } from "../../testkit/worker/fixture-lanes.ts";

declare module "vitest" {
  export interface ProvidedContext {
    originUrl: string;
    garbageUrl: string;
    dohUrl: string;
    ssrfAllowlist: string;
    trapPort: number;
    runnerUrl: string;
    runnerToken: string;
    webhookUrl: string;
    webhookSecret: string;
    oembedUrl: string;
    /** ffprobe's view of each issue-9 fixture (test/worker/files-and-facts/facts-from-evidence.cases.ts scores the service against it). */
    ffprobeFacts: Record<string, FfprobeReference>;
    /** ffprobe's view of each issue-23 container fixture (test/worker/files-and-facts/container-facts.cases.ts). */
    containerFacts: Record<string, ContainerReference>;
    /** exiftool's reading of each tagged fixture (test/worker/provenance-files/provenance.cases.ts). */
    provenanceFacts: Record<string, ExiftoolReading>;
    /** exiftool's reading of moov-last MP4s, HEIF/AVIF stills and Vorbis-comment audio (test/worker/files-and-facts/provenance-tail.cases.ts). */
    provenanceMoreFacts: Record<string, ExiftoolReading>;
    /** Files and manifests other teams made, with ffprobe's and the parsers' readings (test/worker/files-and-facts/made-by-others.cases.ts). */
    others: OthersContext;
  }
}

/** ffprobe processes at once while the set-up reads its references. */
const probeConcurrency = 4;
/** Fixture lanes at once: three keep two cores busy while the small builders mostly start processes. */
const fixtureLanes = 3;

/** Node side of the worker tests: real media files, a loopback origin with faults, a fake DoH resolver, a trap. */
export default async function setup(project: TestProject) {
  const root = join(import.meta.dirname, "..");
  // wrangler's [build] step does not run under vitest: copy the offline Swagger UI assets here.
  execFileSync(process.execPath, [join(root, "..", "scripts", "copy-docs-assets.mjs")]);
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
  project.provide("ffprobeFacts", Object.fromEntries(factFiles.map((file, i) => [file, facts[i]!])));
  const trap = await startConnectionTrap("127.0.0.1");
  const extras: Record<string, () => unknown> = { trap: () => ({ connections: trap.connections() }) };
  // HLS/DASH streams made by ffmpeg, served as /media/hls/master.m3u8 etc. (issue 13).
  const streamsDir = await generateStreamFixtures(join(root, ".fixtures", "streams"));
  // Issue 23: one file per image class and MPEG-TS/PS without video (test/worker/files-and-facts/format-recognition.cases.ts).
  const formatsDir = ensureFormatFixtures(join(root, ".fixtures", "formats"));
  // Issue 23 item 5: one file per container class fast reads from headers, and ffprobe's reading of each.
  const containersDir = ensureContainerFixtures(join(root, ".fixtures", "containers"));
  const containers = await mapLimit(containerFixtures, probeConcurrency, ({ file }) => containerReference(containersDir, file));
  project.provide("containerFacts", Object.fromEntries(containerFixtures.map(({ file }, i) => [file, containers[i]!])));
  // Damaged pictures, rolled-over and cut MPEG-TS, fMP4 segments, FLC (test/worker/files-and-facts/longtail.cases.ts).
  const longtailDirs = [ensureLongtailFixtures(join(root, ".fixtures", "longtail")), ensureLongtailAvFixtures(join(root, ".fixtures", "longtail-av"))];
  longtailDirs.push(ensureLongtailMoreFixtures(join(root, ".fixtures", "longtail-more"))); // raw H.264/HEVC, non-PCM WAVE, Ogg video
  // Subtitle, audio-language, chapter, caption and encrypted files (test/worker/media-facts/tracks.cases.ts).
  const tracksDir = join(root, ".fixtures", "tracks");
  ensureTrackFixtures(tracksDir);
  // Capture, rights and AI-declaration tags written by exiftool, and exiftool's own reading of them.
  const provenanceDir = ensureProvenanceFixtures(join(root, ".fixtures", "provenance"));
  project.provide("provenanceFacts", Object.fromEntries(taggedFixtures.map(({ file }) => [file, exiftoolReading(provenanceDir, file)])));
  // Hostile Content Credentials made from C2PA's own signed test image (test/fixtures/c2pa).
  ensureC2paFixtures(join(provenanceDir, "c2pa"), join(root, "fixtures", "c2pa"), join(provenanceDir, "untagged.jpg"));
  const moreProvenanceDir = ensureMoreProvenanceFixtures(join(root, ".fixtures", "provenance-more"));
  // Sidecar C2PA manifest stores and a JPEG whose XMP names one (test/worker/provenance-files/c2pa-sidecar.cases.ts).
  const sidecarDir = ensureSidecarFixtures(join(root, ".fixtures", "c2pa-sidecar"), join(root, "fixtures", "c2pa"), join(provenanceDir, "c2pa"), join(provenanceDir, "untagged.jpg"));
  // An HLS master naming a WebVTT chapter list (test/worker/media-facts/segment-protection.cases.ts).
  const streamChaptersDir = ensureStreamChapterFixtures(join(root, ".fixtures", "stream-chapters"));
  // Media segments with pssh boxes in their moof (test/worker/media-facts/segment-protection.cases.ts).
  const fragmentsDir = ensureFragmentFixtures(join(root, ".fixtures", "fragments"));
  project.provide("provenanceMoreFacts", Object.fromEntries([...moovLastFixtures, ...stillAndAudioFixtures].map(({ file }) => [file, exiftoolReadingOf(moreProvenanceDir, file)])));
  const signedC2paDir = await ensureSignedC2paFixtures(join(root, ".fixtures", "c2pa-signed"), provenanceDir);
  project.provide("signedC2pa", await signedC2paReadings(signedC2paDir, provenanceDir));
  const { serveDir: cameraDir, files: cameraFiles } = prepareCameraFiles(join(root, ".."), join(root, ".fixtures", "camera-files"));
  project.provide("cameraFiles", cameraFiles);
  // Media and manifests other teams made, shipped in installed npm packages (served as /media/others/...).
  const { serveDir: othersDir, ...others } = await prepareOthers(join(root, ".."), join(root, ".fixtures", "made-by-others"));
  project.provide("others", others);
  project.provide("othersTracks", await prepareOthersTracks(join(root, "..")));
  const origin = await startLoopbackOrigin([mediaDir, join(root, "fixtures", "images"), join(root, "fixtures", "av"), streamsDir, formatsDir, containersDir, ...longtailDirs, tracksDir, provenanceDir, join(provenanceDir, "c2pa"), join(root, "fixtures", "c2pa"), moreProvenanceDir, fragmentsDir, sidecarDir, streamChaptersDir, othersDir, signedC2paDir, cameraDir, othersTracksServeDir(join(root, ".."))], "127.0.0.1", extras);
  const garbage = await startGarbageServer();
  const doh = await startFakeDoh({
    "private.test": { A: ["10.0.0.5"] },
    "meta.test": { A: ["169.254.169.254"] },
    "trap.test": { A: ["127.0.0.1"] },
    "v6private.test": { AAAA: ["fd00::1"] },
    "mapped.test": { AAAA: ["::ffff:127.0.0.1"] },
    "mixed.test": { A: ["8.8.8.8", "192.168.1.1"] },
    "cgnat.test": { A: ["100.64.0.1"] },
    "linklocal6.test": { AAAA: ["fe80::1"] },
    "nat64.test": { AAAA: ["64:ff9b::a00:1"] },
    "nx.test": {},
    // Issue 15 finding 1: names only the DoH fake knows; the system resolver cannot answer them.
    "pinned.test": { A: ["127.0.0.1"] },
    "hook.test": { A: ["127.0.0.1"] },
    "rebind.test": { A: ["8.8.8.8"] },
  });
  const receiver = await startWebhookReceiver();
  const oembed = await startFakeOembed();
  const runnerToken = "test-runner-token-0123456789abcdef";
  const runner = await startRunnerProcess(join(root, ".."), {
    RUNNER_TOKEN: runnerToken,
    SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`,
  });
  const gate = await startRunnerGate(runner.url);
  extras.webhooks = () => receiver.received;
  extras.runnerCalls = () => gate.calls();
  extras.runnerRequestIds = () => gate.requestIds();
  extras.runnerClients = () => gate.clients();
  extras.runnerBudgets = () => gate.budgets();
  extras.oembed = () => oembed.requests;
  project.provide("runnerUrl", gate.url);
  project.provide("runnerToken", runnerToken);
  project.provide("webhookUrl", receiver.url);
  project.provide("webhookSecret", "whsec_" + Buffer.from("test-webhook-secret-32-bytes-long!").toString("base64"));
  project.provide("oembedUrl", oembed.url);
  project.provide("originUrl", origin.url);
  project.provide("garbageUrl", garbage.url);
  project.provide("dohUrl", doh.url);
  project.provide(
    "ssrfAllowlist",
    [origin.port, garbage.port, receiver.port, oembed.port].map((p) => `127.0.0.1:${p}`).join(","),
  );
  project.provide("trapPort", trap.port);
  return async () => {
    // Bounded, so a server that cannot close never keeps the test run alive.
    const closing = Promise.all([origin.close(), garbage.close(), doh.close(), trap.close(), receiver.close(), gate.close(), oembed.close()]);
    await Promise.race([closing, new Promise((r) => setTimeout(r, 5_000).unref())]);
    await runner.stop();
  };
}
