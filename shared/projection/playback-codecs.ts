import { compatibility, type PlaybackFacts } from "../media/browser-support.ts";
import { codecsOf, mimeWithCodecs } from "../media/codec-string.ts";
import type { InspectData } from "../schemas/inspect-data.ts";
import type { ResourceRecord } from "../schemas/record.ts";

type Playback = NonNullable<InspectData["playback"]>;

/** HLS's registered type: what Safari's canPlayType answers for, with the manifest's CODECS. */
const streamTypes = { hls: "application/vnd.apple.mpegurl", dash: "application/dash+xml" } as const;

/**
 * `playback.codecs` and `playback.compatibility` of a video or audio record: the codecs the container header or
 * the runner named (a stream: its first variant's CODECS and audio group), judged by the one support table.
 * Nothing when no codec is known yet, so `fast` shows them exactly when the header gave them.
 */
export function playbackCodecs(record: ResourceRecord): Pick<Playback, "codecs" | "compatibility"> {
  if (record.provider || (record.category !== "video" && record.category !== "audio")) return {};
  const streaming = record.results.streaming;
  if (streaming) {
    const variant = streaming.variants.find((v) => v.codecs) ;
    const listed = variant?.codecs ? codecsOf(`codecs="${variant.codecs}"`) : [];
    if (listed.length === 0) return {};
    const range = variant?.videoRange?.toUpperCase();
    const facts: PlaybackFacts = {
      mime: streamTypes[streaming.protocol], codecs: listed, streaming: streaming.protocol,
      hdr: range === "PQ" ? "pq" : range === "HLG" ? "hlg" : undefined, protection: record.results.protection,
    };
    return { codecs: mimeWithCodecs(facts.mime, listed), compatibility: compatibility(facts) };
  }
  const codecs = record.results.codecs;
  if (!codecs?.length) return {};
  const video = record.results.video;
  const facts: PlaybackFacts = { mime: record.probe.mime, codecs, hdr: video?.hdr, faststart: video?.faststart, protection: record.results.protection };
  return { codecs: mimeWithCodecs(record.probe.mime, codecs), compatibility: compatibility(facts) };
}
