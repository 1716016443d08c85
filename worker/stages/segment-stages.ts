import type { ProbeResult, ResourceRecord } from "../../shared/schemas/record.ts";
import { failStages, pendingStages } from "../record/stage-state.ts";
import { isWebmMediaSegment, mediaSegmentMime } from "../probe/fmp4-segment.ts";
import type { EdgeMediaFacts } from "../probe/edge-media-facts.ts";

/**
 * Streaming segments inspected on their own. An initialization segment has tracks and codecs but no sample, so
 * the stages that need a frame end at once with that reason (no runner job that could only fail); its metadata
 * is the moov's. A media segment has samples but no track list: every stage but the first two ends with the
 * reason, as nothing can be decoded without its initialization segment.
 */
export function segmentOf(mime: string, facts: EdgeMediaFacts | undefined, head: Uint8Array): ProbeResult["segment"] {
  if (mime === mediaSegmentMime || (mime === "video/webm" && isWebmMediaSegment(head))) return "media";
  return facts?.segment;
}

const reasons = {
  init: "an initialization segment: tracks and codecs, no samples, so no frame to preview (its media segments hold them)",
  media: "a media segment: its samples decode only with the initialization segment that describes their tracks",
} as const;

/** Ends the stages a segment cannot give; the others keep their state. */
export function endSegmentStages(record: ResourceRecord): void {
  const segment = record.probe.segment;
  if (!segment) return;
  const ended = pendingStages(record).filter((stage) => segment === "media" || !stage.startsWith("metadata:"));
  failStages(record, ended, reasons[segment], "edge");
}
