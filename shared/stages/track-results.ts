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

/**
 * Encryption that needs a licence (Common Encryption, WebM encryption, DRM key formats): no engine may decode its
 * samples without the key, so previews end with the reason `encrypted`. HLS AES-128 (and SAMPLE-AES with the plain
 * key format) names its key in the playlist: ffmpeg decrypts it.
 */
export function needsLicence(protection: StageResults["protection"]): boolean {
  return protection?.encrypted === true && !(protection.keySystems.length === 0 && /^(AES-128|SAMPLE-AES)$/i.test(protection.scheme ?? ""));
}

/** The failure reason of a preview stage of encrypted media. */
export const encryptedReason = "encrypted";
