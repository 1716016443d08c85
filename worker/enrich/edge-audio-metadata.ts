import { parseFromTokenizer } from "music-metadata";
import { formatBitrate, formatDuration } from "../../shared/format/index.ts";
import type { AudioMetadata } from "../../shared/schemas/data.ts";
import type { RangeByteSource } from "../probe/byte-source.ts";
import { RangeTokenizer } from "../probe/range-tokenizer.ts";
import type { z } from "zod";

export interface EdgeMediaFacts {
  audio?: z.infer<typeof AudioMetadata>;
  hasVideo?: boolean;
  hasAudio?: boolean;
}

/**
 * Reads container facts with music-metadata through Range requests: MP3 Xing/VBRI headers, FLAC STREAMINFO,
 * Ogg's last page, WAV's fmt chunk, an MP4's `moov` (fetched from the tail when it sits after `mdat`).
 * Returns nothing on failure; the media runner then does the work.
 */
export async function readEdgeMediaFacts(source: RangeByteSource, mime: string): Promise<EdgeMediaFacts | undefined> {
  if (source.size === undefined) return undefined;
  try {
    const meta = await parseFromTokenizer(new RangeTokenizer(source, mime), { skipCovers: true, duration: false });
    const f = meta.format;
    const facts: EdgeMediaFacts = { hasVideo: f.hasVideo, hasAudio: f.hasAudio };
    if (f.duration && f.sampleRate) {
      // music-metadata's bitrate is the audio stream's; fall back to the file's average.
      const bps = f.bitrate ?? (source.size * 8) / f.duration;
      facts.audio = {
        duration: { seconds: round(f.duration, 3), formatted: formatDuration(f.duration) },
        bitrate: { bps: Math.round(bps), formatted: formatBitrate(bps) },
        sampleRate: f.sampleRate,
        ...(f.numberOfChannels ? { channels: f.numberOfChannels } : {}),
        ...(f.codec ? { codec: ffprobeCodecName(f.codec, f.bitsPerSample) } : {}),
      };
    }
    return facts;
  } catch {
    return undefined;
  }
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
];

export function ffprobeCodecName(codec: string, bitsPerSample?: number): string {
  if (/^PCM$/i.test(codec)) return `pcm_${bitsPerSample === 8 ? "u8" : `s${bitsPerSample ?? 16}le`}`;
  return ffprobeNames.find(([pattern]) => pattern.test(codec))?.[1] ?? codec.toLowerCase();
}

function round(value: number, digits: number): number {
  const k = 10 ** digits;
  return Math.round(value * k) / k;
}
