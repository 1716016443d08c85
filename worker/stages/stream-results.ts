/**
 * Writes a stream's facts into the record: streaming facts and the duration with the metadata stage
 * (finished inline: the manifest is the metadata), and the runner's preview plan. A stream whose manifest
 * could not be read, or that has no decodable segment, ends those stages as failed with the reason.
 */
import { formatDuration } from "../../shared/format/index.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { StageName } from "../../shared/schemas/stages.ts";
import { stagesInGroup } from "../../shared/stages/index.ts";
import { finishStage } from "../record/stage-state.ts";
import type { ManifestFacts } from "../manifest/inspect-manifest.ts";
import type { ManifestProtocol } from "../manifest/recognize.ts";

export interface StreamOutcome {
  protocol: ManifestProtocol;
  facts?: ManifestFacts;
  /** Why the manifest could not be read (a nested playlist refused, malformed, too large). */
  failure?: string;
}

/** Key systems whose segments no engine here can decrypt (AES-128 can: the key is fetched like a segment). */
const decodable = new Set(["AES-128"]);

export function writeStreamResults(record: ResourceRecord, outcome: StreamOutcome, durationMs: number): void {
  const metadataStage: StageName = record.category === "audio" ? "metadata:audio" : "metadata:video";
  const previews = stagesInGroup("preview").filter((s) => record.stages[s]?.state === "pending");
  const failPreviews = (reason: string) => {
    for (const stage of previews) finishStage(record, stage, { state: "failed", error: reason, engine: "edge" });
  };
  if (!outcome.facts) {
    const reason = `manifest: ${outcome.failure ?? "unreadable"}`;
    finishStage(record, metadataStage, { state: "failed", error: reason, durationMs, engine: "edge" });
    failPreviews(reason);
    return;
  }
  const { facts } = outcome;
  record.results.streaming = facts.streaming;
  const tracks = facts.trackFacts;
  if (tracks?.tracks) record.results.tracks = tracks.tracks;
  if (tracks?.protection) record.results.protection = tracks.protection;
  if (tracks?.live) record.results.live = tracks.live;
  if (tracks?.chapters?.length) record.results.chapters = tracks.chapters;
  const duration = facts.durationSeconds !== undefined ? { duration: { seconds: facts.durationSeconds, formatted: formatDuration(facts.durationSeconds) } } : {};
  if (record.category === "audio") {
    record.results.audio = { ...duration };
  } else {
    // The top variant describes the video at its best; the lowest one is only where previews are read.
    const top = facts.streaming.variants.at(-1);
    record.results.video = {
      ...duration,
      ...(top?.width ? { width: top.width } : {}),
      ...(top?.height ? { height: top.height } : {}),
      ...(top?.frameRate ? { fps: top.frameRate } : {}),
    };
  }
  finishStage(record, metadataStage, { state: "done", durationMs, engine: "edge" });
  const plan = facts.preview;
  if (!plan) return failPreviews("the stream has no video segment to read");
  if (plan.encryption && !decodable.has(plan.encryption)) return failPreviews(`segments are encrypted (${plan.encryption})`);
  record.results.streamPreview = { protocol: outcome.protocol, ...plan };
}
