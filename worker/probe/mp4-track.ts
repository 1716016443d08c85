import type { CodecConfig } from "../../shared/media/codec-string.ts";

/** One track of an MP4/MOV `moov`, as its boxes declare it (ISO/IEC 14496-12). */
export interface Mp4Track {
  kind: "video" | "audio" | "other";
  codec?: string;
  profile?: string;
  pixelFormat?: string;
  /** Displayed size: the track header's size with the display matrix's quarter turns applied. */
  width?: number;
  height?: number;
  rotation?: 0 | 90 | 180 | 270;
  /** The sample entry's (coded) size, before the pixel aspect ratio and the matrix. */
  codedWidth?: number;
  codedHeight?: number;
  /** The `pasp` box's pixel aspect ratio when it is not square. */
  sampleAspectRatio?: { num: number; den: number };
  /** What the track presents: its edit list's span when it has one (mp4-edit-list.ts), else its media's (mdhd). */
  durationSeconds?: number;
  /** When the track starts presenting: its edit list's leading empty edits. */
  startSeconds?: number;
  /** The declared rate: timescale over the commonest sample delta (ffprobe's r_frame_rate). */
  fps?: number;
  sampleRate?: number;
  channels?: number;
  /** The audio entry's sample size (meaningful for lossless and PCM codecs). */
  bitDepth?: number;
  hdr?: "sdr" | "pq" | "hlg";
  /** The sample entry's decoder configuration (avcC, hvcC, vpcC, av1C, esds, or the entry code itself). */
  codecConfig?: CodecConfig;
  /** An attached cover (QuickTime/3GP `covr` is metadata, not a track; a one-sample JPEG track is one). */
  stillPicture?: boolean;
  /** tkhd's track_ID and mdhd's timescale: what a fragmented file's moofs and index refer to. */
  trackId?: number;
  timescale?: number;
  /** trex's default sample duration (fragmented files), in the track's timescale. */
  defaultSampleDuration?: number;
}
