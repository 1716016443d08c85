import type { MediaCategory } from "../../shared/schemas/stages.ts";
import { categoryOf } from "./sniff-mime.ts";

/** What the container's own track list says (cover art already left out: it is a picture, not a video). */
export interface TrackEvidence {
  /** Real video tracks (an attached picture is not one). */
  video: number;
  audio: number;
  /** Which reader produced the list, e.g. "matroska-tracks", "mp4-moov", "ogg-headers", "asf-header", "mpegts-pmt". */
  source: string;
}

export interface CategoryDecision {
  category: MediaCategory;
  mime: string;
  /** The evidence that decided, for `semantic.enrichmentSources` (e.g. "bytes:video/webm", "tracks:matroska-tracks"). */
  evidence: string;
}

/**
 * Containers that may hold audio only although their magic number names them video (or nothing): the track
 * list decides. Each maps to the audio MIME type of the same container.
 */
const audioTwinOf: Readonly<Record<string, string>> = {
  "video/webm": "audio/webm",
  "video/matroska": "audio/matroska",
  "video/x-matroska": "audio/matroska",
  "video/mp4": "audio/mp4",
  "video/quicktime": "audio/mp4",
  "video/3gpp": "audio/3gpp",
  "video/ogg": "audio/ogg",
  "application/ogg": "audio/ogg",
  "video/x-ms-asf": "audio/x-ms-asf",
  "application/vnd.ms-asf": "audio/x-ms-asf",
  "audio/x-ms-asf": "audio/x-ms-asf",
  // MPEG transport and program streams: the PMT's stream types or the packs' stream ids.
  "video/mp2t": "audio/mp2t",
  "video/MP1S": "audio/mpeg",
  "video/MP2P": "audio/mpeg",
  // FLV's header flags and AVI's stream headers.
  "video/x-flv": "audio/x-flv",
  "video/vnd.avi": "audio/vnd.avi",
  // FLI/FLC carry no sound: the header's frame count and speed are the edge's facts (flic-header.ts).
  "video/x-flic": "video/x-flic",
  // Raw H.264/HEVC byte streams are one video stream: the SPS's facts are the edge's (annexb-stream.ts).
  "video/H264": "video/H264",
  "video/H265": "video/H265",
};

/** The video MIME type of a container whose audio twin was sniffed (an Ogg with Theora, an ASF with video). */
const videoTwinOf: Readonly<Record<string, string>> = {
  "audio/ogg": "video/ogg",
  "application/ogg": "video/ogg",
  "audio/x-ms-asf": "video/x-ms-asf",
  "application/vnd.ms-asf": "video/x-ms-asf",
  "audio/webm": "video/webm",
  "audio/matroska": "video/matroska",
  "audio/mp4": "video/mp4",
};

/** Containers whose track list the edge reads from the first bytes (music-metadata and the MP4 box reader). */
export function hasTrackList(mime: string): boolean {
  return mime in audioTwinOf || mime in videoTwinOf;
}

/**
 * Category and MIME type from evidence: the track list when the container has one (a video track makes a
 * video; audio tracks alone make audio, whatever the magic number's family), else the sniffed MIME family.
 */
export function decideCategory(sniffedMime: string, tracks: TrackEvidence | undefined): CategoryDecision {
  if (tracks && hasTrackList(sniffedMime)) {
    if (tracks.video > 0) {
      const mime = categoryOf(sniffedMime) === "video" ? sniffedMime : (videoTwinOf[sniffedMime] ?? sniffedMime);
      return { category: "video", mime, evidence: `tracks:${tracks.source}` };
    }
    if (tracks.audio > 0) {
      const mime = categoryOf(sniffedMime) === "audio" ? sniffedMime : (audioTwinOf[sniffedMime] ?? sniffedMime);
      return { category: "audio", mime, evidence: `tracks:${tracks.source}` };
    }
  }
  // ASF without a readable track list is still media: Windows Media files are mostly audio.
  if (sniffedMime === "application/vnd.ms-asf") return { category: "audio", mime: "audio/x-ms-asf", evidence: `bytes:${sniffedMime}` };
  return { category: categoryOf(sniffedMime), mime: sniffedMime, evidence: `bytes:${sniffedMime}` };
}
