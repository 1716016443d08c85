import { parseFromTokenizer, type IFormat } from "music-metadata";
import { bitrateOf, defined, durationOf, round } from "../../shared/format/metadata-values.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";
import type { TrackEvidence } from "./evidence.ts";
import type { Mp4Facts } from "./mp4-boxes.ts";
import type { OggStream } from "./ogg-headers.ts";
import type { MatroskaFacts } from "./matroska-tracks.ts";
import { RangeTokenizer } from "../bytes/range-tokenizer.ts";
import { matroskaDurationFromTail, mp3DurationByFrames, oggDurationFromTail } from "./tail-duration.ts";
import type { z } from "zod";
import { codecString, type CodecConfig } from "../../shared/media/codec-string.ts";
import { codecConfigFromFfprobe } from "../../shared/media/ffprobe-codec.ts";
import type { FactSources } from "../../shared/shapes/media-data.ts";
import type { HeaderFacts } from "./header-facts.ts";
import { maxListedTracks, type TrackFacts } from "../../shared/shapes/tracks.ts";
import { audioChapters } from "./audio-chapters.ts";
import { ceaCaptions } from "./cea-captions.ts";
import { oggVideoFileDuration } from "./ogg-duration.ts";
import { edgeMediaReaderFor, isMatroska, isMp4, type ContainerTracks, type EdgeMediaFacts } from "./edge-media-readers.ts";

export type { EdgeMediaFacts };

/**
 * Reads container facts through Range requests: our readers where music-metadata leaves facts out or reads too
 * much (MP4/MOV boxes: track headers, display matrix, sample entries; Matroska Info/Tracks by element walking;
 * the ASF header's stream list), music-metadata for the other audio containers and Ogg, tail reads for
 * durations the header does not state. Every reader asks the byte source for what it needs beyond the head.
 * Returns what it could read; the media runner does the rest.
 */
export async function readEdgeMediaFacts(source: RangeByteSource, mime: string, head: Uint8Array): Promise<EdgeMediaFacts | undefined> {
  const reader = edgeMediaReaderFor(mime);
  if (reader?.kind === "stream-list") return reader.read(source, head, fromHeaderFacts);
  if (source.size === undefined) return undefined;
  const size = source.size;
  if (reader?.kind === "header") {
    // A reader that throws (a header it cannot read) is a reader that found nothing.
    const declared = await (async () => reader.read(source, head, size))().catch(() => undefined);
    if (declared) return fromHeaderFacts(declared, size);
  }
  const { mp4, mkv, ogg, asf }: ContainerTracks = reader?.kind === "tracks" ? await reader.read(source) : {};
  const oggAudio = ogg?.find((s) => s.kind === "audio" && s.codec && s.sampleRate);
  // A parsed moov, Tracks list or Ogg header already says everything; music-metadata would only read past it again.
  const parsed = mkv || mp4?.tracks.length || oggAudio ? undefined : await parseFromTokenizer(new RangeTokenizer(source, mime), { skipCovers: true, duration: false })
    .catch(() => undefined);
  const format = parsed?.format;
  const oggVideo = ogg?.some((s) => s.kind === "video");
  if (!format && !mp4 && !mkv && !asf && !oggAudio && !oggVideo) return undefined;

  const facts: EdgeMediaFacts = mp4?.moov ? { moov: mp4.moov } : {};
  if (mp4?.segment) facts.segment = mp4.segment;
  const trackFacts = mp4?.trackFacts ?? mkv?.trackFacts;
  if (trackFacts) facts.trackFacts = withCea(trackFacts, head);
  // ID3 CHAP and Vorbis CHAPTERxx: the tags music-metadata already read.
  const chapters = audioChapters(parsed);
  if (chapters.length > 0) facts.trackFacts = { ...facts.trackFacts, chapters };
  facts.tracks = trackEvidence(mime, format, mp4, mkv, asf, oggAudio || oggVideo ? ogg : undefined);
  let duration = mp4?.durationSeconds ?? mkv?.durationSeconds ?? format?.duration;
  if (duration === undefined && mkv) {
    duration = await matroskaDurationFromTail(source, mkv.timecodeScale).catch(() => undefined);
    if (duration !== undefined) facts.durationSource = "matroska-tail";
  }
  if (duration === undefined && oggAudio && !ogg?.some((s) => s.kind === "video")) {
    duration = await oggDurationFromTail(source, { serial: oggAudio.serial, sampleRate: oggAudio.sampleRate!, preSkip: oggAudio.preSkip }).catch(() => undefined);
  }
  if (duration === undefined && oggVideo && ogg) duration = await oggVideoFileDuration(source, ogg);
  if (duration === undefined && mime === "audio/mpeg") {
    duration = await mp3DurationByFrames(source, head).catch(() => undefined);
    if (duration !== undefined) facts.durationSource = "mp3-frames";
  }

  const box = mp4?.tracks.find((t) => t.kind === "audio") ?? mkv?.tracks.find((t) => t.kind === "audio") ?? oggAudio;
  const mmAudio = format?.trackInfo.find((t) => t.type === 2 || t.audio);
  const codecName = box?.codec ?? (format?.codec ? ffprobeCodecName(format.codec, format.bitsPerSample) : undefined);
  // Opus decodes at 48 kHz always; the header's "input sample rate" is only what the encoder was fed.
  const sampleRate = codecName === "opus" ? 48000
    : (box?.sampleRate ?? mmAudio?.audio?.samplingFrequency ?? format?.sampleRate ?? asf?.sampleRate);
  const channels = box?.channels ?? mmAudio?.audio?.channels ?? format?.numberOfChannels ?? asf?.channels;
  const bits = (mkv?.tracks.find((t) => t.kind === "audio")?.bitDepth) ?? box?.bitDepth ?? mmAudio?.audio?.bitDepth ?? format?.bitsPerSample ?? asf?.bitsPerSample;

  const video = mp4?.tracks.find((t) => t.kind === "video" && !t.stillPicture);
  const mkvVideo = mkv?.tracks.find((t) => t.kind === "video");
  // Theora's and VP8's identification headers state the size and frame rate (ogg-video.ts).
  const oggHeader = ogg?.find((s) => s.kind === "video")?.video;
  // MP4's mvhd/mdhd and Matroska's Info/Duration are declared; a tail or frame walk counted packets.
  const durationFrom = facts.durationSource ? "packets-counted" as const : (mp4?.durationFrom ?? "header");
  if (video || mkvVideo || oggHeader) {
    const sar = video?.sampleAspectRatio ?? mkvVideo?.sampleAspectRatio ?? oggHeader?.sampleAspectRatio;
    const oggFps = oggHeader?.rate ? round(oggHeader.rate.num / oggHeader.rate.den, 3) : undefined;
    const fps = video?.fps ?? mkvVideo?.fps ?? oggFps;
    facts.video = defined({
      codedWidth: video?.codedWidth ?? mkvVideo?.codedWidth ?? oggHeader?.width,
      codedHeight: video?.codedHeight ?? mkvVideo?.codedHeight ?? oggHeader?.height,
      sampleAspectRatio: sar ? `${sar.num}:${sar.den}` : undefined,
      sources: sourcesOf({ duration: duration && durationFrom, fps: fps && (oggFps ? "header" : "sample-tables"), dimensions: "header", bitrate: duration && "bitrate-estimate" }),
      duration: durationOf(duration),
      fps,
      bitrate: duration ? bitrateOf((size * 8) / duration) : undefined,
      width: video?.width ?? mkvVideo?.width ?? oggHeader?.width,
      height: video?.height ?? mkvVideo?.height ?? oggHeader?.height,
      rotation: video?.rotation,
      codec: video?.codec ?? mkvVideo?.codec ?? oggHeader?.codec,
      profile: video?.profile,
      pixelFormat: video?.pixelFormat ?? oggHeader?.pixelFormat,
      hdr: video?.hdr,
      faststart: mp4?.faststart,
      channels,
    });
  }
  const configs = [video?.codecConfig ?? mkvVideo?.codecConfig ?? oggVideoConfig(ogg), mp4?.tracks.find((t) => t.kind === "audio")?.codecConfig
    ?? mkv?.tracks.find((t) => t.kind === "audio")?.codecConfig].filter((c) => c !== undefined);
  // Plain audio files (MP3, FLAC, Ogg) have no sample entry: the codec's name is its codecs entry. An MP4 or
  // Matroska audio track without a decoder configuration stays unnamed rather than guessed.
  const entryAudio = mp4?.tracks.some((t) => t.kind === "audio") || mkv?.tracks.some((t) => t.kind === "audio");
  const named = configs.length < 2 && !entryAudio && codecName ? codecConfigFromFfprobe({ codec_name: codecName }, isMp4(mime)) : undefined;
  if (named && !configs.some((c) => c.codec === named.codec)) configs.push(named);
  if (configs.length > 0) facts.codecs = configs.map(codecString);
  if (duration && sampleRate && !facts.tracks?.video) {
    // music-metadata's bitrate is the audio stream's; fall back to the file's average.
    const bps = format?.bitrate && facts.durationSource === undefined ? format.bitrate : (size * 8) / duration;
    facts.audio = defined({
      sources: sourcesOf({ duration: durationFrom, sampleRate: "header",
        bitrate: format?.bitrate && facts.durationSource === undefined ? "header" : "bitrate-estimate" }),
      duration: durationOf(duration),
      bitrate: bitrateOf(bps),
      sampleRate,
      channels,
      channelLayout: channels ? channelLayoutOf(channels) : undefined,
      bitDepth: codecName && losslessCodecs.has(codecName.replace(/^pcm_.*/, "pcm")) ? bits : undefined,
      codec: codecName,
    });
  }
  return facts;
}

/**
 * The PMT's stream_type 0x03/0x04 says "MPEG audio", not which layer: the first frame header (read with the
 * stream's timing) does. It names the first MPEG audio track.
 */
/** Ogg's video codecs name themselves (Theora, VP8): their codecs entry is the name. */
function oggVideoConfig(streams: OggStream[] | undefined): CodecConfig | undefined {
  const codec = streams?.find((s) => s.kind === "video")?.codec;
  return codec === "theora" || codec === "vp8" ? { codec } : undefined;
}

/** CEA-608/708 captions in the first video samples the head holds (an MP4 with its moov first, Matroska). */
function withCea(trackFacts: TrackFacts, head: Uint8Array): TrackFacts {
  const tracks = trackFacts.tracks;
  const video = tracks?.video.find((v) => v.codec === "h264" || v.codec === "hevc");
  const formats = video ? ceaCaptions(head) : [];
  if (!tracks || formats.length === 0) return trackFacts;
  const text = [...tracks.text, ...formats.map((format) => ({ kind: "captions" as const, format }))];
  return { ...trackFacts, tracks: { ...tracks, text: text.slice(0, maxListedTracks) } };
}

/** The API's shapes from a header reader's facts; a video needs duration and size, as for MP4 and Matroska. */
function fromHeaderFacts(h: HeaderFacts, size: number): EdgeMediaFacts {
  const facts: EdgeMediaFacts = { tracks: { video: h.video, audio: h.audio, source: h.reader }, ...(h.timeless ? { timeless: true } : {}) };
  const duration = h.durationSeconds && Number.isFinite(h.durationSeconds) ? h.durationSeconds : undefined;
  const bitrate = duration ? (size * 8) / duration : undefined;
  if (h.video > 0) {
    facts.video = defined({
      duration: durationOf(duration),
      fps: h.fps ? round(h.fps, 3) : undefined,
      bitrate: bitrate ? bitrateOf(bitrate) : undefined,
      width: h.width,
      height: h.height,
      codedWidth: h.width,
      codedHeight: h.height,
      codec: h.videoCodec,
      profile: h.videoProfile,
      pixelFormat: h.pixelFormat,
      channels: h.audio > 0 ? h.channels : undefined,
      sources: sourcesOf({ duration: duration && h.durationFrom, fps: h.fps && "header", dimensions: h.width && "header", bitrate: bitrate && "bitrate-estimate" }),
    });
  } else if (h.audio > 0 && h.sampleRate) {
    const audioBitrate = h.audioBitrate ?? bitrate;
    facts.audio = defined({
      duration: durationOf(duration),
      bitrate: audioBitrate ? bitrateOf(audioBitrate) : undefined,
      sampleRate: h.sampleRate,
      channels: h.channels,
      channelLayout: h.channels ? channelLayoutOf(h.channels) : undefined,
      bitDepth: h.bitDepth,
      codec: h.audioCodec,
      sources: sourcesOf({ duration: duration && h.durationFrom, sampleRate: "header",
        bitrate: h.audioBitrate ? (h.durationFrom === "bitrate-estimate" ? "bitrate-estimate" : "header") : bitrate && "bitrate-estimate" }),
    });
  }
  // An audio codec's name is its codecs entry; a video one needs its profile and level, which only some of these
  // headers give (a raw stream's SPS): otherwise left to the runner rather than guessed.
  const codec = h.video > 0 ? undefined : h.audioCodec;
  const config = h.video > 0 ? h.videoConfig : codec ? codecConfigFromFfprobe({ codec_name: codec }, false) : undefined;
  if (config) facts.codecs = [codecString(config)];
  return facts;
}

type Source = NonNullable<z.infer<typeof FactSources>["duration"]>;

/** The evidence per fact, leaving out facts not reported (a falsy entry). */
function sourcesOf(entries: Partial<Record<keyof z.infer<typeof FactSources>, Source | 0 | undefined | false>>): z.infer<typeof FactSources> | undefined {
  const out = Object.fromEntries(Object.entries(entries).filter(([, v]) => typeof v === "string"));
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Audio and video track counts from the container's own list; cover art is never a video track. */
function trackEvidence(mime: string, format: IFormat | undefined, mp4: Mp4Facts | undefined, mkv: MatroskaFacts | undefined,
  asf: ContainerTracks["asf"], ogg: OggStream[] | undefined): TrackEvidence | undefined {
  if (mp4) {
    return {
      video: mp4.tracks.filter((t) => t.kind === "video" && !t.stillPicture).length,
      audio: mp4.tracks.filter((t) => t.kind === "audio").length,
      source: "mp4-moov",
    };
  }
  if (mkv) return { video: mkv.tracks.filter((t) => t.kind === "video").length, audio: mkv.tracks.filter((t) => t.kind === "audio").length, source: "matroska-tracks" };
  if (asf) return { video: asf.video, audio: asf.audio, source: "asf-header" };
  if (ogg) return { video: ogg.filter((s) => s.kind === "video").length, audio: ogg.filter((s) => s.kind === "audio").length, source: "ogg-headers" };
  if (!format) return undefined;
  const listed = format.trackInfo.filter((t) => t.type === 1 || t.type === 2);
  if (listed.length > 0) {
    return { video: listed.filter((t) => t.type === 1).length, audio: listed.filter((t) => t.type === 2).length, source: isMatroska(mime) ? "matroska-tracks" : "container-tracks" };
  }
  // Ogg and plain audio containers: music-metadata reads each logical stream's header (Theora sets hasVideo).
  return { video: format.hasVideo ? 1 : 0, audio: format.hasAudio ? 1 : 0, source: /ogg/.test(mime) ? "ogg-headers" : "audio-header" };
}

/** Codecs with a bit depth (lossless or PCM); for lossy codecs the decoder's sample format is a choice. */
const losslessCodecs = new Set(["flac", "alac", "pcm", "wavpack", "ape", "tta"]);

/** The names ffprobe gives channel counts when the file does not spell out a layout. */
export function channelLayoutOf(channels: number): string | undefined {
  return ({ 1: "mono", 2: "stereo", 6: "5.1", 8: "7.1" } as Record<number, string>)[channels];
}

/**
 * music-metadata names codecs for people ("MPEG 1 Layer 3", "Vorbis I"); the runner reports ffprobe's short
 * names. One vocabulary whichever engine read the file: map the edge names to ffprobe's.
 */
const ffprobeNames: [RegExp, string][] = [
  [/^MPEG \d(\.\d)? Layer 3$/i, "mp3"],
  [/^MPEG \d(\.\d)? Layer 2$/i, "mp2"],
  [/AAC/i, "aac"],
  [/^Vorbis/i, "vorbis"],
  [/^Opus/i, "opus"],
  [/^FLAC$/i, "flac"],
  [/^ALAC$/i, "alac"],
  [/^Speex/i, "speex"],
  [/^Windows Media Audio V8$/i, "wmav2"],
  [/^Windows Media Audio V7$/i, "wmav1"],
];

export function ffprobeCodecName(codec: string, bitsPerSample?: number): string {
  if (/^PCM$/i.test(codec)) return `pcm_${bitsPerSample === 8 ? "u8" : `s${bitsPerSample ?? 16}le`}`;
  return ffprobeNames.find(([pattern]) => pattern.test(codec))?.[1] ?? codec.toLowerCase();
}
