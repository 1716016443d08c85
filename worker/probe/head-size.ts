import type { Config } from "../config/config.ts";
import { filenameFrom } from "./filename.ts";

/**
 * Extensions of audio formats whose stream facts sit in their first few KiB (MP3 frame header or Xing/VBRI
 * after an ID3v2 header, FLAC STREAMINFO, WAV/AIFF fmt, ADTS, Ogg identification pages). For these the first
 * read is PROBE_FRONT_HEAD_BYTES: what a good parser pulls, not a whole initial window of audio data. The name
 * is only a hint: if the bytes say otherwise, readers ask the byte source for what they need, as they do
 * after any head.
 */
const frontLoadedExtensions: ReadonlySet<string> = new Set(["mp3", "flac", "wav", "wave", "aif", "aiff", "aac", "ogg", "oga", "opus", "spx"]);

/** The size of the first Range request for this URL. */
export function probeHeadBytes(url: string, config: Config): number {
  const extension = extensionOf(url);
  return extension !== undefined && frontLoadedExtensions.has(extension)
    ? Math.min(config.PROBE_FRONT_HEAD_BYTES, config.PROBE_HEAD_BYTES)
    : config.PROBE_HEAD_BYTES;
}

/**
 * Bytes at the end of files named like containers that may keep facts there, read together with the head (a
 * suffix Range needs no size, so it does not wait for the head): ID3v1/APEv2 tags of FLAC and MP3 (128 and 32
 * bytes), the last cluster of a WebM/Matroska recording without Duration (the first tail step of
 * matroskaDurationFromTail), the moov of a moov-last MP4 (32 KiB: what is read whole after an mdat), the last
 * Ogg page, the last PTS of an MPEG-TS/PS. The name is only a hint: readers fetch whatever the suffix missed.
 */
const suffixBytesByExtension: Readonly<Record<string, number>> = {
  flac: 1024, mp3: 1024,
  webm: 64 * 1024, mkv: 64 * 1024, mka: 64 * 1024,
  mp4: 32 * 1024, m4v: 32 * 1024, m4a: 32 * 1024, mov: 32 * 1024,
  ogg: 8 * 1024, oga: 8 * 1024, opus: 8 * 1024, ogv: 8 * 1024,
  ts: 188 * 128, m2ts: 188 * 128, mts: 188 * 128, mpg: 32 * 1024, mpeg: 32 * 1024,
};

/** The size of the suffix Range request sent together with the first one, or 0 for none. */
export function probeSuffixBytes(url: string): number {
  const extension = extensionOf(url);
  return extension === undefined ? 0 : (suffixBytesByExtension[extension] ?? 0);
}

/** The extension of the file's name as the URL gives it (the name `metadata.filename` reports), lower-cased. */
function extensionOf(url: string): string | undefined {
  const name = URL.canParse(url) ? filenameFrom(null, url) : undefined;
  if (!name) return undefined;
  const dot = name.lastIndexOf(".");
  if (dot <= 0 || name.length - dot > 6) return undefined;
  return name.slice(dot + 1).toLowerCase();
}
