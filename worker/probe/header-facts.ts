import type { FactSource } from "../../shared/shapes/media-data.ts";
import type { z } from "zod";
import type { CodecConfig } from "../../shared/media/codec-string.ts";

/** What a container-specific header reader (AC-3, ADTS, RF64, FLV, AVI) found, in one shape for the edge. */
export interface HeaderFacts {
  video: number;
  audio: number;
  durationSeconds?: number;
  durationFrom?: z.infer<typeof FactSource>;
  width?: number;
  height?: number;
  fps?: number;
  videoCodec?: string;
  /** The video profile as ffprobe names it, and the decoder configuration, when the header carries them (a raw stream's SPS). */
  videoProfile?: string;
  videoConfig?: CodecConfig;
  pixelFormat?: string;
  sampleRate?: number;
  channels?: number;
  bitDepth?: number;
  audioCodec?: string;
  /** The audio stream's own rate, when the header states or implies it. */
  audioBitrate?: number;
  /** A stream without timestamps (a raw H.264/HEVC byte stream): no duration will ever be known, not even by ffprobe. */
  timeless?: boolean;
  /** Which reader produced them, e.g. "ac3-sync", "flv-onmetadata": the track evidence's source. */
  reader: string;
}
