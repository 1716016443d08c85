/**
 * Image metadata and decoding, with the decoder chosen per format. sharp (libvips) is the default: it decodes
 * JPEG, PNG, WebP, GIF, AVIF, TIFF and SVG in-process, straight to thumbnail size. Its prebuilt libvips has no
 * BMP, ICO or JPEG XL loader, which Debian's ffmpeg 5.1 has (native bmp and ico demuxers, libjxl), so those go
 * through one ffmpeg run to PNG. HEIF/HEIC stills are read by neither here (libvips lacks libheif's HEVC
 * decoder, ffmpeg 5.1 has no HEIF demuxer): they keep their edge header facts and get no preview.
 */
import sharp, { type Metadata } from "sharp";
import type { RunnerMetadata } from "../../../shared/schemas/runner.ts";
import { formatDuration } from "../../../shared/format/index.ts";
import { RunnerError } from "../errors.ts";
import { runProcess } from "./run-process.ts";
import { engineBoundArgs, ffmpegOutputBoundArgs } from "./engine-args.ts";
import { engineAddressSpaceBytes, stillMaxAllocBytes } from "./limits.ts";
import { decodeToRaster, type Raster } from "./previews.ts";

type ImageMetadata = NonNullable<RunnerMetadata["image"]>;

/** ffmpeg demuxer for each format sharp cannot read, recognised by its magic number. */
const ffmpegFormats: ReadonlyArray<{ name: string; demuxer: string; matches: (b: Buffer) => boolean }> = [
  { name: "bmp", demuxer: "bmp_pipe", matches: (b) => b[0] === 0x42 && b[1] === 0x4d },
  { name: "ico", demuxer: "ico", matches: (b) => b.readUInt32BE(0) === 0x00000100 || b.readUInt32BE(0) === 0x00000200 },
  { name: "jxl", demuxer: "jpegxl_pipe", matches: (b) => (b[0] === 0xff && b[1] === 0x0a) || b.subarray(4, 8).toString("latin1") === "JXL " },
];

/** The ffmpeg-decoded formats' name for a file head, or undefined for sharp's. */
export function ffmpegFormatOf(head: Buffer): (typeof ffmpegFormats)[number] | undefined {
  return head.length >= 12 ? ffmpegFormats.find((f) => f.matches(head)) : undefined;
}

export interface DecodeOptions {
  ffmpeg: string;
  timeoutMs: number;
  maxPixels: number;
  signal?: AbortSignal;
}

/** A decoded still is far below this as PNG at source size (the pixel limit bounds it). */
const maxPngBytes = 256 * 1024 * 1024;

/** One frame of a local image file as PNG bytes, through the one demuxer named (never format probing). */
async function ffmpegToPng(file: string, demuxer: string, options: DecodeOptions): Promise<Buffer> {
  const maxAlloc = stillMaxAllocBytes(options.maxPixels);
  const result = await runProcess(options.ffmpeg, [
    "-hide_banner", "-nostdin", "-loglevel", "error",
    "-protocol_whitelist", "file", "-max_pixels", String(options.maxPixels), ...engineBoundArgs(maxAlloc),
    "-f", demuxer, "-i", file, "-frames:v", "1", ...ffmpegOutputBoundArgs(), "-f", "image2pipe", "-c:v", "png", "pipe:1",
  ], {
    timeoutMs: options.timeoutMs,
    maxStdoutBytes: maxPngBytes,
    addressSpaceBytes: engineAddressSpaceBytes(maxAlloc),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (result.code !== 0 || result.stdout.length === 0) throw new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", result.stderr.trim());
  return result.stdout;
}

/** sharp's metadata or, for ffmpeg's formats, the metadata of the decoded frame (the same numbers). */
export async function readImageMetadata(file: string, head: Buffer, options: DecodeOptions): Promise<Metadata> {
  const viaFfmpeg = ffmpegFormatOf(head);
  if (!viaFfmpeg) return sharp(file, { limitInputPixels: options.maxPixels }).metadata();
  const png = await ffmpegToPng(file, viaFfmpeg.demuxer, options);
  return sharp(png, { limitInputPixels: options.maxPixels }).metadata();
}

/** Decodes to a thumbnail-sized raster with the decoder chosen for the format. */
export async function decodeImage(file: string, head: Buffer, maxPx: number, options: DecodeOptions): Promise<Raster> {
  const viaFfmpeg = ffmpegFormatOf(head);
  if (!viaFfmpeg) return decodeToRaster(file, maxPx, options.maxPixels);
  return decodeToRaster(await ffmpegToPng(file, viaFfmpeg.demuxer, options), maxPx, options.maxPixels);
}

/** The API's image facts from sharp's metadata: displayed size, EXIF orientation, frames, animation. */
export function toImageMetadata(meta: Metadata): ImageMetadata {
  // Report the displayed size: an EXIF-rotated photo shows portrait although stored landscape.
  const shown = meta.autoOrient ?? { width: meta.width, height: meta.height };
  const frames = meta.pages ?? 1;
  const ms = frames > 1 && meta.delay ? meta.delay.reduce((sum, d) => sum + d, 0) : undefined;
  return {
    colorSpace: meta.space ?? "unknown",
    hasAlpha: meta.hasAlpha ?? false,
    ...(shown.width ? { width: shown.width } : {}),
    ...(shown.height ? { height: shown.height } : {}),
    ...(meta.orientation ? { orientation: meta.orientation } : {}),
    frames,
    ...(ms !== undefined ? { duration: { seconds: ms / 1000, formatted: formatDuration(ms / 1000) } } : {}),
    ...(frames > 1 && meta.loop !== undefined ? { loop: meta.loop } : {}),
  };
}
