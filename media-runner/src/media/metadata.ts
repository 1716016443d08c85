/** Maps ffprobe's output to the API's metadata shapes. */
import { bitrateOf, defined, durationOf, round } from "../../../shared/format/metadata-values.ts";
import type { RunnerMetadata } from "../../../shared/shapes/runner.ts";
import { frameRate, positive, type FfprobeOutput, type FfprobeStream } from "./ffprobe.ts";
import { codecString } from "../../../shared/media/codec-string.ts";
import { codecConfigFromFfprobe } from "../../../shared/media/ffprobe-codec.ts";

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

/**
 * Video bitrate is the container's overall rate (what a player needs to stream it); fps is the declared frame
 * rate (r_frame_rate), falling back to the average when the declared one is a timebase.
 */
export function toVideoMetadata(probe: FfprobeOutput, stream: FfprobeStream): VideoMetadata {
  const seconds = durationSeconds(probe, stream);
  const fps = declaredRate(stream);
  const rotation = rotationOf(stream);
  const quarter = rotation === 90 || rotation === 270;
  const soundtrack = audioStream(probe);
  const sar = sampleAspectRatio(stream.sample_aspect_ratio);
  // ffprobe's width is the coded one; a player stretches it by the sample aspect ratio (anamorphic video).
  const shown = stream.width && sar ? Math.round((stream.width * sar.num) / sar.den) : stream.width;
  const rate = bitrateOf(positive(probe.format?.bit_rate) ?? positive(stream.bit_rate));
  return defined({
    duration: durationOf(seconds),
    fps: fps === undefined ? undefined : round(fps, 3),
    bitrate: rate,
    // As displayed: a phone video stored landscape with a 90° matrix plays portrait.
    width: quarter ? stream.height : shown,
    height: quarter ? shown : stream.height,
    codedWidth: stream.width,
    codedHeight: stream.height,
    sampleAspectRatio: sar ? `${sar.num}:${sar.den}` : undefined,
    sources: decoderSources({ duration: seconds, fps, dimensions: stream.width, bitrate: rate }),
    rotation,
    codec: stream.codec_name,
    profile: known(stream.profile),
    pixelFormat: known(stream.pix_fmt),
    hdr: hdrOf(stream.color_transfer),
    channels: soundtrack?.channels && soundtrack.channels > 0 ? soundtrack.channels : undefined,
  });
}

/** Above this, r_frame_rate is a timebase (1 ms Matroska, 90 kHz TS), not a frame rate: the average decides. */
const maxDeclaredFps = 240;

/**
 * The declared frame rate, as the edge reads it from stts or DefaultDuration: r_frame_rate. The average
 * (frames over duration) drifts with a long last frame, an edit list or a first sample's composition offset.
 */
function declaredRate(stream: FfprobeStream): number | undefined {
  const declared = frameRate(stream.r_frame_rate);
  return declared !== undefined && declared <= maxDeclaredFps ? declared : frameRate(stream.avg_frame_rate);
}

/** A non-square sample aspect ratio ("64:45"); square ("1:1") and unknown ("0:1", "N/A") give undefined. */
export function sampleAspectRatio(value: string | undefined): { num: number; den: number } | undefined {
  const match = /^(\d{1,6}):(\d{1,6})$/.exec(value ?? "");
  const num = Number(match?.[1]);
  const den = Number(match?.[2]);
  return match && num > 0 && den > 0 && num !== den ? { num, den } : undefined;
}

/** Every fact the runner reports was read by ffprobe: `decoder`, for the facts that are present. */
function decoderSources(facts: Partial<Record<"duration" | "fps" | "dimensions" | "bitrate" | "sampleRate", unknown>>) {
  const sources = defined(Object.fromEntries(Object.entries(facts).map(([k, v]) => [k, v === undefined ? undefined : "decoder" as const])));
  return Object.keys(sources).length > 0 ? sources : undefined;
}

/** ffprobe's "unknown" and empty strings carry no fact. */
function known(value: string | undefined): string | undefined {
  return value && value !== "unknown" ? value : undefined;
}

/**
 * Clockwise degrees a player turns the picture. ffprobe's display-matrix side data gives the counter-clockwise
 * angle (-90 for a portrait phone video); older files carry a `rotate` tag in clockwise degrees.
 */
export function rotationOf(stream: FfprobeStream): 0 | 90 | 180 | 270 {
  const matrix = stream.side_data_list?.find((d) => d.rotation !== undefined)?.rotation;
  const degrees = matrix !== undefined ? -matrix : Number(stream.tags?.rotate ?? 0);
  const snapped = ((Math.round((Number.isFinite(degrees) ? degrees : 0) / 90) * 90) % 360 + 360) % 360;
  return snapped as 0 | 90 | 180 | 270;
}

/** SMPTE ST 2084 is PQ (HDR10, Dolby Vision's base), ARIB STD-B67 is HLG; anything else is SDR. */
function hdrOf(transfer: string | undefined): "sdr" | "pq" | "hlg" {
  if (transfer === "smpte2084") return "pq";
  if (transfer === "arib-std-b67") return "hlg";
  return "sdr";
}

/** Codecs that have a bit depth (lossless or PCM); a lossy decoder's sample format is its own choice. */
const depthCodecs = /^(flac|alac|wavpack|ape|tta|pcm_.*)$/;

/** ffprobe's layout names when the file states none (WMA, some WAV). */
const defaultLayouts: Readonly<Record<number, string>> = { 1: "mono", 2: "stereo", 6: "5.1", 8: "7.1" };

/** Audio bitrate is the audio stream's own rate when known (cover art would inflate the container's). */
export function toAudioMetadata(probe: FfprobeOutput, stream: FfprobeStream): AudioMetadata {
  const channels = stream.channels;
  const count = channels !== undefined && channels > 0 ? channels : undefined;
  const depth = positive(stream.bits_per_raw_sample) ?? positive(stream.bits_per_sample);
  const seconds = durationSeconds(probe, stream);
  const rate = bitrateOf(positive(stream.bit_rate) ?? positive(probe.format?.bit_rate));
  const sampleRate = positive(stream.sample_rate);
  return defined({
    duration: durationOf(seconds),
    bitrate: rate,
    sampleRate,
    sources: decoderSources({ duration: seconds, bitrate: rate, sampleRate }),
    channels: count,
    channelLayout: known(stream.channel_layout)?.replace(/\(side\)$/, "") ?? (count ? defaultLayouts[count] : undefined),
    bitDepth: stream.codec_name && depthCodecs.test(stream.codec_name) ? depth : undefined,
    codec: stream.codec_name,
  });
}

/**
 * RFC 6381 codecs entries of the picture and sound streams, video first (`playback.codecs`). Undefined when
 * neither has an entry browsers know (e.g. PCM, WMA).
 */
export function toCodecs(probe: FfprobeOutput, video: FfprobeStream | undefined, audio: FfprobeStream | undefined): string[] | undefined {
  const inMp4 = /\bmp4\b|\bmov\b/.test(probe.format?.format_name ?? "");
  const entries = [video, audio]
    .map((stream) => (stream ? codecConfigFromFfprobe(stream, inMp4) : undefined))
    .filter((config) => config !== undefined)
    .map(codecString);
  return entries.length > 0 ? entries : undefined;
}
