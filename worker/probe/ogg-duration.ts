import type { RangeByteSource } from "../bytes/byte-source.ts";
import type { OggStream } from "./ogg-headers.ts";
import { oggVideoSeconds } from "./ogg-video.ts";
import { oggDurationFromTail } from "./tail-duration.ts";

/**
 * An Ogg file with video: the longest of its video stream's and first audio stream's durations, each from its last
 * page's granule position (ffprobe's format duration is the longest stream's). Two tail reads of the same bytes.
 */
export async function oggVideoFileDuration(source: RangeByteSource, streams: readonly OggStream[]): Promise<number | undefined> {
  const video = streams.find((s) => s.kind === "video" && s.video);
  const audio = streams.find((s) => s.kind === "audio" && s.sampleRate);
  const header = video?.video;
  const seconds = await Promise.all([
    header ? oggDurationFromTail(source, { serial: video.serial, sampleRate: 1 }, (high, low) => oggVideoSeconds(header, high, low)).catch(() => undefined) : undefined,
    audio ? oggDurationFromTail(source, { serial: audio.serial, sampleRate: audio.sampleRate!, preSkip: audio.preSkip }).catch(() => undefined) : undefined,
  ]);
  const known = seconds.filter((s): s is number => s !== undefined && Number.isFinite(s) && s > 0);
  return known.length > 0 ? Math.max(...known) : undefined;
}
