/**
 * The reference tools' readings of the Worker tests' generated media (ffprobe, exiftool, the C2PA SDK, the stream
 * parsers). test/worker/global-setup.ts makes the media in the background and answers each reading from the loopback
 * origin (`/__extra/<key>`) once it is made; a test file reads one with `await fixtureFacts(key)`.
 */
import { inject } from "vitest";
import type { SdkReading } from "../c2pa-signed-variants.ts";
import type { CameraFile } from "../camera-files.ts";
import type { ContainerReference } from "../container-fixtures.ts";
import type { FfprobeReference } from "../ffprobe-reference.ts";
import type { OthersContext } from "../made-by-others.ts";
import type { OthersTracksContext } from "../others-tracks.ts";
import type { ExiftoolReading } from "../provenance-fixtures.ts";

export interface WorkerFixtureFacts {
  /** ffprobe's view of each media fixture (test/worker/files-and-facts/facts-from-evidence.cases.ts scores the service against it). */
  ffprobeFacts: Record<string, FfprobeReference>;
  /** ffprobe's view of each container fixture (test/worker/files-and-facts/container-facts.cases.ts). */
  containerFacts: Record<string, ContainerReference>;
  /** exiftool's reading of each tagged fixture (test/worker/provenance-files/provenance.cases.ts). */
  provenanceFacts: Record<string, ExiftoolReading>;
  /** exiftool's reading of moov-last MP4s, HEIF/AVIF stills and Vorbis-comment audio (test/worker/files-and-facts/provenance-tail.cases.ts). */
  provenanceMoreFacts: Record<string, ExiftoolReading>;
  /** The C2PA SDK Reader's reading of each file the tests signed (test/worker/provenance-files/c2pa-signed.cases.ts). */
  signedC2pa: Record<string, SdkReading>;
  /** Real camera and phone photos from npm packages, with exiftool's reading (test/worker/files-and-facts/camera-files.cases.ts). */
  cameraFiles: CameraFile[];
  /** Files and manifests other teams made, with ffprobe's and the parsers' readings (test/worker/files-and-facts/made-by-others.cases.ts). */
  others: OthersContext;
  /** Readings of the caption, text, language and encrypted files others made (test/worker/made-by-others-tracks.test.ts). */
  othersTracks: OthersTracksContext;
}

export const workerFixtureFactKeys = ["ffprobeFacts", "containerFacts", "provenanceFacts", "provenanceMoreFacts", "signedC2pa", "cameraFiles",
  "others", "othersTracks"] as const satisfies ReadonlyArray<keyof WorkerFixtureFacts>;

/** Waits until the set-up has made the fixtures, then answers their reading `key`. */
export async function fixtureFacts<K extends keyof WorkerFixtureFacts>(key: K): Promise<WorkerFixtureFacts[K]> {
  return (await fromSetUp(key)) as WorkerFixtureFacts[K];
}

/** Resolves once every generated fixture is on disk; throws the set-up's error when one could not be made. */
export async function fixturesReady(): Promise<void> {
  await fromSetUp("fixturesReady");
}

async function fromSetUp(key: string): Promise<unknown> {
  const response = await fetch(`${inject("originUrl")}/__extra/${key}`);
  if (!response.ok) throw new Error(`the Worker tests' fixtures could not be made: ${await response.text()}`);
  return response.json();
}
