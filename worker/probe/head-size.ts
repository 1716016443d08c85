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

/** The extension of the file's name as the URL gives it (the name `metadata.filename` reports), lower-cased. */
function extensionOf(url: string): string | undefined {
  const name = URL.canParse(url) ? filenameFrom(null, url) : undefined;
  if (!name) return undefined;
  const dot = name.lastIndexOf(".");
  if (dot <= 0 || name.length - dot > 6) return undefined;
  return name.slice(dot + 1).toLowerCase();
}
