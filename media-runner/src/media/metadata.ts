/** Maps ffprobe's output to the API's metadata shapes (SPEC 2.2). */
import { formatBitrate, formatDuration } from "../../../shared/format/index.ts";
import type { RunnerMetadata } from "../../../shared/schemas/runner.ts";
import { frameRate, positive, type FfprobeOutput, type FfprobeStream } from "./ffprobe.ts";

type VideoMetadata = NonNullable<RunnerMetadata["video"]>;
type AudioMetadata = NonNullable<RunnerMetadata["audio"]>;

/** The main picture stream; cover art in audio files is a one-frame "video" stream to skip. */
export function videoStream(probe: FfprobeOutput): FfprobeStream | undefined {
  return probe.streams.find((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1);
}

export function audioStream(probe: FfprobeOutput): FfprobeStream | undefined {
  return probe.streams.find((s) => s.codec_type === "audio");
}

export function durationSeconds(probe: FfprobeOutput, stream: FfprobeStream | undefined): number | undefined {
  return positive(probe.format?.duration) ?? positive(stream?.duration);
}

function duration(seconds: number | undefined) {
  return seconds === undefined ? undefined : { seconds: round(seconds, 3), formatted: formatDuration(seconds) };
}

function bitrate(bps: number | undefined) {
  return bps === undefined ? undefined : { bps: Math.round(bps), formatted: formatBitrate(bps) };
}

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/** Drops undefined fields so the result never carries empty keys. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Video bitrate is the container's overall rate (what a player needs to stream it); fps is the average
 * frame rate, falling back to the stream's base rate when the container does not state it.
 */
export function toVideoMetadata(probe: FfprobeOutput, stream: FfprobeStream): VideoMetadata {
  const seconds = durationSeconds(probe, stream);
  const fps = frameRate(stream.avg_frame_rate) ?? frameRate(stream.r_frame_rate);
  return defined({
    duration: duration(seconds),
    fps: fps === undefined ? undefined : round(fps, 3),
    bitrate: bitrate(positive(probe.format?.bit_rate) ?? positive(stream.bit_rate)),
    width: stream.width,
    height: stream.height,
    codec: stream.codec_name,
  });
}

/** Audio bitrate is the audio stream's own rate when known (cover art would inflate the container's). */
export function toAudioMetadata(probe: FfprobeOutput, stream: FfprobeStream): AudioMetadata {
  const channels = stream.channels;
  return defined({
    duration: duration(durationSeconds(probe, stream)),
    bitrate: bitrate(positive(stream.bit_rate) ?? positive(probe.format?.bit_rate)),
    sampleRate: positive(stream.sample_rate),
    channels: channels !== undefined && channels > 0 ? channels : undefined,
    codec: stream.codec_name,
  });
}
