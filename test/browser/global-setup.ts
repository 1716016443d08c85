/**
 * Browser test set-up: the real `npm start` started twice for the whole project instead of once per file (each
 * start costs a wrangler build, a workerd and a media runner), both at once, with the loopback servers they read,
 * while a child process makes the media those servers serve (testkit/browser/make-fixtures.ts).
 *
 * - "local": `npm start` as a user runs it beside `npm run samples` (SAMPLES_PORT given, no SSRF_ALLOWLIST: local
 *   mode allow-lists the samples origin itself), for the share page and the players.
 * - "fixtures": generated media on loopback origins (playground samples, codec samples, tagged pictures, tracks)
 *   and an oEmbed fake, all allow-listed, for the playground pages.
 *
 * Files that read the service's own log lines (cors.test.ts) still start their own.
 */
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { browserFixtureDirs, makeBrowserFixturesAside } from "../../testkit/browser/make-fixtures.ts";
import { startFakeOembed } from "../../testkit/fake-oembed.ts";
import { startLoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { startSamples, startService } from "../../testkit/start-service.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** `npm start` beside `npm run samples`, in local mode's defaults. */
    localService: { base: string; samplesUrl: string };
    /** `npm start` allow-listing the origins below. */
    fixturesService: {
      base: string;
      /** The playground's sample files (ensurePlaygroundSamples). */
      playgroundOrigin: string;
      /** One file per codec family (testkit/browser/codec-samples.ts). */
      codecOrigin: string;
      /** exiftool-tagged pictures and C2PA's signed test images. */
      provenanceOrigin: string;
      /** Subtitle, caption and encrypted tracks (testkit/track-fixtures.ts). */
      tracksOrigin: string;
    };
  }
}

const root = join(import.meta.dirname, "..", "..");

export default async function setup(project: TestProject) {
  const samples = await startSamples();
  // The origins serve folders the child below fills while the services start; no test runs before both are done.
  const dirs = browserFixtureDirs(root);
  const fixturesMade = makeBrowserFixturesAside(root);
  const playground = await startLoopbackOrigin(dirs.playground);
  const codecs = await startLoopbackOrigin([dirs.codecs]);
  const provenance = await startLoopbackOrigin(dirs.provenance);
  const tracks = await startLoopbackOrigin([dirs.tracks]);
  const oembed = await startFakeOembed();
  const allowed = [playground, codecs, provenance, tracks, oembed].map((s) => `127.0.0.1:${s.port}`).join(",");
  const servers = [samples, playground, codecs, provenance, tracks, oembed];
  const closeServers = () => Promise.all(servers.map((s) => ("stop" in s ? s.stop() : s.close())));
  const started = await Promise.allSettled([
    startService({ env: { SAMPLES_PORT: String(samples.port), SSRF_ALLOWLIST: undefined } }),
    startService({
      env: {
        SSRF_ALLOWLIST: allowed,
        OEMBED_BASE_URL: oembed.url,
        WEBHOOK_SECRET: "whsec_" + Buffer.from("browser-secret-browser-secret-32").toString("base64"),
      },
    }),
    fixturesMade,
  ]);
  const failed = started.find((s) => s.status === "rejected");
  if (failed) {
    await Promise.all(started.map((s) => (s.status === "fulfilled" && s.value ? s.value.stop() : undefined)));
    await closeServers();
    throw failed.reason;
  }
  const [local, fixtures] = started.slice(0, 2).map((s) => (s as PromiseFulfilledResult<Awaited<ReturnType<typeof startService>>>).value) as [
    Awaited<ReturnType<typeof startService>>,
    Awaited<ReturnType<typeof startService>>,
  ];
  project.provide("localService", { base: local.base, samplesUrl: samples.url });
  project.provide("fixturesService", {
    base: fixtures.base,
    playgroundOrigin: playground.url,
    codecOrigin: codecs.url,
    provenanceOrigin: provenance.url,
    tracksOrigin: tracks.url,
  });
  return async () => {
    await Promise.all([local.stop(), fixtures.stop()]);
    await closeServers();
  };
}
