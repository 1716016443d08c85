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
        ...(f.codec ? { codec: f.codec } : {}),
      };
    }
    return facts;
  } catch {
    return undefined;
  }
}

function round(value: number, digits: number): number {
  const k = 10 ** digits;
  return Math.round(value * k) / k;
}
