/**
 * The edge's media readers as one table, MIME type to reader, in the order they are tried (as file-type keeps
 * its detectors): a new container is a row here and a reader module of its own. Three kinds of reader:
 * - `stream-list`: MPEG-TS/PS, read from the head before anything else; its answer is final.
 * - `header`: one small reader covers the container (music-metadata reads none of them, or not their
 *   duration); when it finds nothing, the file goes on to music-metadata.
 * - `tracks`: our reader of the container's track list (MP4 boxes, Matroska elements, Ogg pages, the ASF
 *   header), which music-metadata's tags and the tail reads then complete (edge-media-facts.ts).
 */
import type { RangeByteSource } from "../bytes/byte-source.ts";
import type { HeaderFacts } from "./header-facts.ts";
import type { z } from "zod";
import type { AudioMetadata, VideoMetadata } from "../../shared/shapes/media-data.ts";
import type { TrackFacts } from "../../shared/shapes/tracks.ts";
import type { TrackEvidence } from "./evidence.ts";
import { readAsfHeader } from "./asf-streams.ts";
import { readMpegPsStreams } from "./mpegps-streams.ts";
import { readMpegTsStreams } from "./mpegts-streams.ts";
import { readMpegTsTracks } from "./mpegts-tracks.ts";
import { readMp4, type Mp4Facts } from "./mp4-boxes.ts";
import { readOggHeaders, type OggStream } from "./ogg-headers.ts";
import { readMatroska, type MatroskaFacts } from "./matroska-tracks.ts";
import { readAc3 } from "./ac3-frames.ts";
import { isPackedAudio, maxCountedAdtsBytes, readAdts } from "./adts-frames.ts";
import { readWave } from "./wave-header.ts";
import { readFlv } from "./flv-metadata.ts";
import { readAvi } from "./avi-header.ts";
import { readMpegTs } from "./mpegts-timing.ts";
import { readMpegPs } from "./mpegps-timing.ts";
import { readAmr } from "./amr-frames.ts";
import { flicMime, readFlic } from "./flic-header.ts";
import { h264Mime, hevcMime, readAnnexB } from "./annexb-stream.ts";

/** What the edge reads of a media file's container (edge-media-facts.ts fills it). */
export interface EdgeMediaFacts {
  audio?: z.infer<typeof AudioMetadata>;
  video?: z.infer<typeof VideoMetadata>;
  /** The container's track list, when it has one: the category evidence. */
  tracks?: TrackEvidence;
  /** How the duration was found when the container does not declare one ("matroska-tail", "mp3-frames"). */
  durationSource?: string;
  /** RFC 6381 codecs entries of the video and audio tracks the container's sample entries describe. */
  codecs?: string[];
  /** An initialization segment (mp4-boxes.ts): tracks and codecs, no samples. */
  segment?: "init";
  /** A raw byte stream with no timestamps: its video facts are whole without a duration. */
  timeless?: boolean;
  /** Tracks with languages and dispositions, chapters and encryption, where the header read declares them. */
  trackFacts?: TrackFacts;
  /** An MP4/MOV moov read whole (capture and rights facts live in its user data). */
  moov?: Uint8Array;
}

/** What the track-list readers found; at most one of them reads a given file. */
export interface ContainerTracks {
  mp4?: Mp4Facts;
  mkv?: MatroskaFacts;
  ogg?: OggStream[];
  asf?: Awaited<ReturnType<typeof readAsfHeader>>;
}

/** A header reader's facts turned into the API's shapes (edge-media-facts.ts passes it in; it sits above this table). */
export type FromHeaderFacts = (facts: HeaderFacts, size: number) => EdgeMediaFacts;

export type EdgeMediaReader =
  | { kind: "stream-list"; name: string; accepts: (mime: string) => boolean; read: (source: RangeByteSource, head: Uint8Array, fromHeader: FromHeaderFacts) => Promise<EdgeMediaFacts | undefined> }
  | { kind: "header"; name: string; accepts: (mime: string) => boolean; read: (source: RangeByteSource, head: Uint8Array, size: number) => Promise<HeaderFacts | undefined> | HeaderFacts | undefined }
  | { kind: "tracks"; name: string; accepts: (mime: string) => boolean; read: (source: RangeByteSource) => Promise<ContainerTracks> };

export const isMp4 = (mime: string) => /^(video|audio)\/(mp4|quicktime|3gpp)$/.test(mime);
export const isMatroska = (mime: string) => /^(video|audio)\/(webm|matroska|x-matroska)$/.test(mime);
const isOgg = (mime: string) => /^(audio|video|application)\/ogg\b/.test(mime);
const oneOf = (...mimes: string[]) => (mime: string) => mimes.includes(mime);

function mpegTracks(streams: { video: number; audio: number } | undefined, source: string): EdgeMediaFacts | undefined {
  return streams ? { tracks: { ...streams, source } } : undefined;
}

/** The PMT names MPEG audio by stream type alone; the first frame header says which layer it is (as ffprobe does). */
function withMpegAudioLayer(trackFacts: TrackFacts | undefined, headerCodec: string | undefined): TrackFacts | undefined {
  const audio = trackFacts?.tracks?.audio;
  const first = audio?.findIndex((t) => t.codec === "mp2" || t.codec === "mp3") ?? -1;
  if (!trackFacts?.tracks || !audio || first < 0 || !headerCodec || !/^mp[123]$/.test(headerCodec)) return trackFacts;
  const named = audio.map((t, i) => (i === first ? { ...t, codec: headerCodec } : t));
  return { ...trackFacts, tracks: { ...trackFacts.tracks, audio: named } };
}

/** Only the stream list (and timing) of MPEG-TS, from the head: music-metadata does not read this container. */
async function readMpegTsFacts(source: RangeByteSource, head: Uint8Array, fromHeader: FromHeaderFacts): Promise<EdgeMediaFacts | undefined> {
  const ts = await readMpegTs(source, head).catch(() => undefined);
  const facts = ts ? fromHeader(ts, source.size ?? head.length) : mpegTracks(readMpegTsStreams(head), "mpegts-pmt");
  const trackFacts = withMpegAudioLayer(readMpegTsTracks(head), ts?.audioCodec);
  return facts && trackFacts ? { ...facts, trackFacts } : facts;
}

async function readMpegPsFacts(source: RangeByteSource, head: Uint8Array, fromHeader: FromHeaderFacts): Promise<EdgeMediaFacts | undefined> {
  const ps = await readMpegPs(source, head).catch(() => undefined);
  return ps ? fromHeader(ps, source.size ?? head.length) : mpegTracks(readMpegPsStreams(head), "mpegps-packs");
}

/**
 * An HLS packed-audio segment (its ID3 tag carries the segment's MPEG-TS timestamp) is read whole and its frames
 * counted: a bitrate estimate is worst on a few seconds of audio. Other ADTS files keep ffprobe's estimate.
 */
async function readAdtsFacts(source: RangeByteSource, head: Uint8Array, size: number): Promise<HeaderFacts | undefined> {
  const packed = isPackedAudio(head) && size <= maxCountedAdtsBytes;
  return readAdts(packed ? await source.read(0, size) : head, size, packed);
}

/** The table, tried in order; the first reader that accepts the MIME type reads the file. */
export const edgeMediaReaders: readonly EdgeMediaReader[] = [
  { kind: "stream-list", name: "mpegts", accepts: oneOf("video/mp2t"), read: readMpegTsFacts },
  { kind: "stream-list", name: "mpegps", accepts: oneOf("video/MP1S", "video/MP2P"), read: readMpegPsFacts },
  { kind: "header", name: "ac3", accepts: oneOf("audio/vnd.dolby.dd-raw", "audio/ac3", "audio/eac3"), read: (_source, head, size) => readAc3(head, size) },
  { kind: "header", name: "adts", accepts: oneOf("audio/aac", "audio/x-aac"), read: readAdtsFacts },
  { kind: "header", name: "wave", accepts: oneOf("audio/wav"), read: (_source, head, size) => readWave(head, size) },
  { kind: "header", name: "amr", accepts: oneOf("audio/amr", "audio/amr-wb"), read: (_source, head, size) => readAmr(head, size) },
  { kind: "header", name: "flv", accepts: oneOf("video/x-flv"), read: (_source, head) => readFlv(head) },
  { kind: "header", name: "flic", accepts: oneOf(flicMime), read: (_source, head) => readFlic(head) },
  { kind: "header", name: "annexb", accepts: oneOf(h264Mime, hevcMime), read: (_source, head) => readAnnexB(head) },
  { kind: "header", name: "avi", accepts: oneOf("video/vnd.avi", "video/avi", "video/x-msvideo"), read: (source, head) => readAvi(source, head) },
  { kind: "tracks", name: "mp4", accepts: isMp4, read: async (source) => ({ mp4: await readMp4(source).catch(() => undefined) }) },
  // Matroska's Info and Tracks, by element walking; music-metadata would walk every cluster of a live recording.
  { kind: "tracks", name: "matroska", accepts: isMatroska, read: async (source) => ({ mkv: await readMatroska(source).catch(() => undefined) }) },
  // Ogg's identification headers sit on its first pages (music-metadata reads 13 pages for them).
  { kind: "tracks", name: "ogg", accepts: isOgg, read: async (source) => ({ ogg: await readOggHeaders(source).catch(() => undefined) }) },
  { kind: "tracks", name: "asf", accepts: (mime) => /ms-asf/.test(mime), read: async (source) => ({ asf: await readAsfHeader(source).catch(() => undefined) }) },
];

/** The reader of this MIME type, if the table has one (otherwise music-metadata alone reads the file). */
export function edgeMediaReaderFor(mime: string): EdgeMediaReader | undefined {
  return edgeMediaReaders.find((reader) => reader.accepts(mime));
}
