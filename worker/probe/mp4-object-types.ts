import type { CodecConfig } from "../../shared/media/codec-string.ts";

/**
 * MP4 facts by code, kept apart from the box walk: which sample-entry codecs are pictures, and the esds
 * objectTypeIndication values (MP4RA registry) of audio codecs other than MPEG-4 Audio (0x40).
 */

/** Codecs (ffprobe's names) whose one-sample track is an attached picture; a one-sample H.264/HEVC/AV1 track is a video. */
const pictureCodecs: ReadonlySet<string> = new Set(["mjpeg", "png", "gif", "bmp", "tiff", "jpeg2000"]);
export const isPictureCodec = (codec: string | undefined): boolean => codec !== undefined && pictureCodecs.has(codec);

/** objectTypeIndication -> codecs entry and ffprobe's codec name. 0xDD is the value ffmpeg and others write for Vorbis. */
export const esdsAudioTypes: Readonly<Record<number, { config: CodecConfig; name: string }>> = {
  0x69: { config: { codec: "mp3-in-mp4" }, name: "mp3" },
  0x6b: { config: { codec: "mp3-in-mp4" }, name: "mp3" },
  0xa5: { config: { codec: "ac3" }, name: "ac3" },
  0xa6: { config: { codec: "eac3" }, name: "eac3" },
  0xad: { config: { codec: "opus" }, name: "opus" },
  0xdd: { config: { codec: "vorbis" }, name: "vorbis" },
};
