/**
 * Messages between the runner and a frame decoder process (decoder-source.ts), over the child's IPC channel
 * (advanced serialization, so byte buffers travel as they are). The decoder has no other channel: it asks the
 * runner for bytes [offset, offset + length) of the one file of its one job, and answers with a raster.
 */
import type { SeekMode } from "../frame.ts";

/** Demuxers the decoder may open: the containers the runner's own byte source serves as one self-contained file. */
export type DecoderFormat = "mov" | "matroska";

export interface DecodeJob {
  type: "job";
  id: number;
  size: number;
  format: DecoderFormat;
  time: number;
  mode: SeekMode;
  maxPx: number;
  maxPixels: number;
  threads: number;
  /** Packets of the chosen stream read before a frame must have come out (a file of undecodable packets ends here). */
  maxPackets: number;
  /** AVFormatContext options, all strings (probesize, analyzeduration, max_streams, whitelists). */
  demuxerOptions: Record<string, string>;
}

export interface BytesAnswer {
  type: "bytes";
  seq: number;
  /** Empty at the end of the file. */
  data?: Uint8Array;
  /** The runner could not read them (origin failure, cap): the decoder's read fails. */
  error?: string;
}

export type ToDecoder = DecodeJob | BytesAnswer;

export type FromDecoder =
  | { type: "ready" }
  | { type: "read"; id: number; seq: number; offset: number; length: number }
  | { type: "done"; id: number; status: "frame"; width: number; height: number; data: Uint8Array }
  | { type: "done"; id: number; status: "none" }
  /** The file is outside what the decoder reproduces exactly as ffmpeg's CLI does (a rotated picture, no video stream). */
  | { type: "done"; id: number; status: "unsupported"; reason: string }
  | { type: "failed"; id: number; message: string };
