/**
 * The browser tests' generated media: the playground's samples, one file per codec family, tagged pictures and
 * tracks. test/browser/global-setup.ts makes them in a child process (makeBrowserFixturesAside) while its two services
 * start, instead of before them: the making is synchronous (ffmpeg, exiftool one file at a time), and every test file
 * of the run waits for the set-ups.
 */
import { join } from "node:path";
import { runTsChild } from "../fixture-lanes.ts";
import { ensureProvenanceFixtures } from "../provenance-fixtures.ts";
import { ensureTrackFixtures } from "../track-fixtures.ts";
import { ensureCodecSamples } from "./codec-samples.ts";
import { ensurePlaygroundSamples } from "./samples.ts";

/** The folders the browser tests' origins serve (filled by makeBrowserFixtures). */
export function browserFixtureDirs(root: string) {
  const fixtures = join(root, "test", ".fixtures");
  return {
    playground: [join(fixtures, "playground"), join(fixtures, "media")],
    codecs: join(fixtures, "codecs"),
    provenance: [join(fixtures, "provenance"), join(root, "test", "fixtures", "c2pa")],
    tracks: join(fixtures, "tracks"),
  };
}

function makeBrowserFixtures(root: string): void {
  const dirs = browserFixtureDirs(root);
  const made = [...ensurePlaygroundSamples(root), ensureCodecSamples(root), ensureProvenanceFixtures(dirs.provenance[0]!)];
  ensureTrackFixtures(dirs.tracks);
  const expected = [...dirs.playground, dirs.codecs, dirs.provenance[0]];
  if (made.join("\n") !== expected.join("\n")) throw new Error(`browser fixtures made in ${made.join(", ")}, served from ${expected.join(", ")}`);
}

/** makeBrowserFixtures in a child process; rejects with the child's error output when it fails. */
export function makeBrowserFixturesAside(root: string): Promise<void> {
  return runTsChild([import.meta.filename, root], "making the browser tests' fixtures").exited;
}

// Run as the child: argv is the repository root.
if (process.argv[1] === import.meta.filename) makeBrowserFixtures(process.argv[2]!);
