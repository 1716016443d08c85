import { z } from "zod";
import { int } from "./setting.ts";

/** Settings of `probe/` and `bytes/`: the Range reads the container readers make. */
export const ProbeConfigSchema = z.object({
  /**
   * Bytes requested by the first Range probe. Default 16 KiB: it fits a TCP initial congestion window (10
   * segments), so the first answer costs one round trip; readers that need more ask for exactly that.
   */
  PROBE_HEAD_BYTES: int(16 * 1024),
  /**
   * First Range request for URLs named like front-loaded audio (.mp3, .flac, .wav, .ogg...; see
   * worker/probe/head-size.ts): their stream facts sit in the first KiBs. Default 4 KiB, never above
   * PROBE_HEAD_BYTES.
   */
  PROBE_FRONT_HEAD_BYTES: int(4 * 1024),
  /**
   * Bytes kept from an origin that ignores Range and streams the whole file (a 200): those bytes arrive anyway,
   * and nothing past them can be asked for. Default 64 KiB.
   */
  PROBE_STREAM_HEAD_BYTES: int(64 * 1024),
  /**
   * Smallest follow-up Range read after the head (a parser's targeted read): a parser's next few small reads
   * usually land in it. Default 4 KiB.
   */
  PROBE_READ_MIN_BYTES: int(4 * 1024),
  /** Largest `moov` box fetched from the tail of an MP4 to read it at the edge. Default 8 MiB. */
  MAX_TAIL_BYTES: int(8 * 1024 * 1024),
});
export type ProbeConfig = z.infer<typeof ProbeConfigSchema>;
