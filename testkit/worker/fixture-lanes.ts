/**
 * The worker tests' generated media in lanes that read and write no file of another lane (run by testkit/fixture-lanes.ts,
 * a few at once). Each builder skips what is already on disk, so test/worker/global-setup.ts calls them again afterwards,
 * cheaply, for their results.
 */
import { join } from "node:path";
import { ensureC2paFixtures } from "../c2pa-fixtures.ts";
import { ensureContainerFixtures } from "../container-fixtures.ts";
import { ensureDepthFixtures } from "../depth-fixtures.ts";
import type { Lanes } from "../fixture-lanes.ts";
import { ensureHeadFixtures } from "../head-fixtures.ts";
import { silentFlac, writeOnce } from "../hostile-inputs.ts";
import { ensureHostileMp4s } from "../hostile-mp4.ts";
import { ensureFormatFixtures } from "../image-format-fixtures.ts";
import { ensureLongtailAvFixtures } from "../longtail-av-fixtures.ts";
import { ensureLongtailFixtures } from "../longtail-image-fixtures.ts";
import { ensureMediaFixtures } from "../media-fixtures.ts";
import { ensureProvenanceFixtures } from "../provenance-fixtures.ts";
import { generateStreamFixtures } from "../stream-fixtures.ts";
import { ensureTrackFixtures } from "../track-fixtures.ts";

/** The generated folders, under test/.fixtures. */
export const workerFixtureDirs = (root: string) => {
  const fixtures = join(root, "test", ".fixtures");
  return {
    media: join(fixtures, "media"),
    streams: join(fixtures, "streams"),
    formats: join(fixtures, "formats"),
    containers: join(fixtures, "containers"),
    longtail: join(fixtures, "longtail"),
    longtailAv: join(fixtures, "longtail-av"),
    tracks: join(fixtures, "tracks"),
    provenance: join(fixtures, "provenance"),
    images: join(root, "test", "fixtures", "images"),
    c2pa: join(root, "test", "fixtures", "c2pa"),
  };
};

export const lanes: Lanes = {
  /** The origin's media folder, in two lanes that write different files of it. */
  media: (root) => ensureMediaFixtures(workerFixtureDirs(root).media),
  /** The hostile MP4s are cut from a head fixture, so they follow it in this lane. */
  head(root) {
    const dirs = workerFixtureDirs(root);
    ensureHeadFixtures(dirs.media, dirs.images);
    ensureHostileMp4s(dirs.media);
    ensureDepthFixtures(dirs.media);
    // 0.9 MB of FLAC declaring ten hours of 8-channel audio (test/worker/jobs-and-runner/hostile-retries.cases.ts).
    writeOnce(join(dirs.media, "ten-hours-8ch.flac"), () => silentFlac({ hours: 10, channels: 8, sampleRate: 48000 }));
  },
  streams: (root) => generateStreamFixtures(workerFixtureDirs(root).streams),
  formats: (root) => ensureFormatFixtures(workerFixtureDirs(root).formats),
  containers: (root) => ensureContainerFixtures(workerFixtureDirs(root).containers),
  longtail: (root) => ensureLongtailFixtures(workerFixtureDirs(root).longtail),
  longtailAv: (root) => ensureLongtailAvFixtures(workerFixtureDirs(root).longtailAv),
  tracks: (root) => ensureTrackFixtures(workerFixtureDirs(root).tracks),
  /** The C2PA fixtures are cut from the provenance lane's untagged picture. */
  provenance(root) {
    const dirs = workerFixtureDirs(root);
    ensureProvenanceFixtures(dirs.provenance);
    ensureC2paFixtures(join(dirs.provenance, "c2pa"), dirs.c2pa, join(dirs.provenance, "untagged.jpg"));
  },
};

/** Longest first, so the last lane to start is a short one. */
export const workerLaneOrder = ["media", "head", "formats", "provenance", "tracks", "containers", "longtail", "streams", "longtailAv"];
