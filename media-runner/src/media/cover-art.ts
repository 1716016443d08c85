/**
 * An audio file's embedded cover (ID3 APIC, FLAC/Vorbis METADATA_BLOCK_PICTURE, MP4 covr): ffmpeg shows it as a
 * video stream with disposition attached_pic. It is decoded like any frame, under the same pixel walls
 * (`-max_pixels` in the engine, sharp's limitInputPixels on the PNG): a cover is untrusted input.
 */
import type { FfprobeOutput } from "./ffprobe.ts";
import { extractFrame, type FrameOptions } from "./frame.ts";
import { decodeToRaster, type Raster } from "./previews.ts";
import { RunnerError } from "../errors.ts";

/** The `-map` specifier of the first attached picture (`0:v:N`, N counting every video stream), if the file has one. */
export function coverArtMap(probed: FfprobeOutput): string | undefined {
  const videos = probed.streams.filter((s) => s.codec_type === "video");
  const ordinal = videos.findIndex((s) => s.disposition?.attached_pic === 1);
  return ordinal >= 0 ? `0:v:${ordinal}` : undefined;
}

/** The cover, thumbnail-sized; fails CORRUPT_MEDIA when the picture cannot be decoded. */
export async function coverArtRaster(input: string, map: string, options: Omit<FrameOptions, "mode" | "map">): Promise<Raster> {
  const png = await extractFrame(input, 0, { ...options, mode: "exact", map });
  if (!png) throw new RunnerError("CORRUPT_MEDIA", "the cover art could not be decoded");
  return decodeToRaster(png, options.maxPx, options.maxPixels);
}
