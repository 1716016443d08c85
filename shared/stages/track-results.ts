import type { RunnerMetadata } from "../shapes/runner.ts";
import type { StageResults } from "../shapes/stage-results.ts";

/**
 * The track facts an engine's metadata carries (tracks, chapters, encryption), as record results: written with
 * the metadata stage whichever engine ran it. Encryption is only ever added: a reader that did not see it (ffprobe
 * names no key system) never clears what another found.
 */
export function trackResults(metadata: RunnerMetadata | undefined): Partial<StageResults> {
  if (!metadata) return {};
  return {
    ...(metadata.tracks ? { tracks: metadata.tracks } : {}),
    ...(metadata.chapters?.length ? { chapters: metadata.chapters } : {}),
    ...(metadata.protection ? { protection: metadata.protection } : {}),
  };
}
