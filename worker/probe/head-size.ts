import type { Config } from "../config.ts";

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

/** The last path segment's extension, lower-cased; linear scans, no pattern matching on the URL. */
function extensionOf(url: string): string | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0 || name.length - dot > 6) return undefined;
  return name.slice(dot + 1).toLowerCase();
}
