/**
 * Image metadata and decoding, with the decoder chosen per format. sharp (libvips) is the default: it decodes
 * JPEG, PNG, WebP, GIF, AVIF, TIFF and SVG in-process, straight to thumbnail size (JPEG and WebP shrink on
 * load). Its prebuilt libvips has no BMP, ICO, JPEG XL, JPEG 2000, netpbm, PSD, DDS, TGA or lossless-JPEG
 * loader, which Debian's ffmpeg 5.1 has, so those go through one ffmpeg run to PNG. HEVC-coded HEIF/HEIC
 * stills go through libheif's heif-convert (heif-decode.ts). Each source is converted once per job.
 */
import sharp, { type Metadata, type SharpOptions } from "sharp";
import type { RunnerMetadata } from "../../../shared/shapes/runner.ts";
import { formatDuration } from "../../../shared/format/index.ts";
import { open, readFile } from "node:fs/promises";
import { extraImageFormatOf, type ExtraImageFormat } from "../../../shared/media/image-signatures.ts";
import { svgRootOffset } from "../../../shared/media/svg-sniff.ts";
import { RunnerError } from "../errors.ts";
import { runProcess } from "./run-process.ts";
import { engineBoundArgs, ffmpegOutputBoundArgs } from "./engine-args.ts";
import { decodeHeif } from "./heif-decode.ts";
import { isIcns, largestIcnsPng } from "./icns.ts";
import { bptcTextureOf } from "./dds-bptc.ts";
import { bptcDdsToPng, legacyTiffToImage } from "./decoder-thread.ts";
import type { GainMapFacts } from "../../../shared/media/gain-map.ts";
import { engineAddressSpaceBytes, shrinkOnLoadMaxSourcePixels, shrinkOnLoadPixels, stillMaxAllocBytes } from "./engine-limits.ts";
import { decodeToRaster, type Raster } from "./previews.ts";
import { jp2IccProfile, maxJp2IccBytes, pngWithIccProfile } from "./jp2-icc.ts";

type ImageMetadata = NonNullable<RunnerMetadata["image"]>;

/**
 * ffmpeg input options for each format sharp cannot read, recognised by its magic number: always one named
 * demuxer (never format probing). TGA has no demuxer of its own: image2 on exactly this file (no pattern)
 * with the targa decoder named.
 */
const ffmpegInputs: Readonly<Partial<Record<ExtraImageFormat | "bmp" | "ico" | "jxl", readonly string[]>>> = {
  bmp: ["-f", "bmp_pipe"],
  ico: ["-f", "ico"],
  jxl: ["-f", "jpegxl_pipe"],
  jpeg2000: ["-f", "j2k_pipe"],
  pbm: ["-f", "pbm_pipe"],
  pgm: ["-f", "pgm_pipe"],
  ppm: ["-f", "ppm_pipe"],
  pam: ["-f", "pam_pipe"],
  psd: ["-f", "psd_pipe"],
  dds: ["-f", "dds_pipe"],
  "jpeg-lossless": ["-f", "jpeg_pipe"],
  tga: ["-f", "image2", "-pattern_type", "none", "-c:v", "targa"],
  pfm: ["-f", "pfm_pipe"],
};

const legacyFfmpegFormats: ReadonlyArray<{ name: "bmp" | "ico" | "jxl"; matches: (b: Buffer) => boolean }> = [
  { name: "bmp", matches: (b) => b[0] === 0x42 && b[1] === 0x4d },
  // ICONDIR: reserved 0, type 1 (icon) or 2 (cursor), then a non-zero image count. Without the count an
  // uncompressed TGA (id length 0, no colour map, image type 2: 00 00 02 00) would pass for a cursor.
  { name: "ico", matches: (b) => (b.readUInt32BE(0) === 0x00000100 || b.readUInt32BE(0) === 0x00000200) && b.readUInt16LE(4) > 0 },
  { name: "jxl", matches: (b) => (b[0] === 0xff && b[1] === 0x0a) || b.subarray(4, 8).toString("latin1") === "JXL " },
];

export type ImageDecoder = { kind: "sharp" } | { kind: "ffmpeg"; format: string; inputArgs: readonly string[] } | { kind: "libheif" }
  | { kind: "svg-root"; offset: number } | { kind: "slice"; offset: number; end?: number } | { kind: "icns" } | { kind: "dds-bptc" }
  | { kind: "tiff-legacy" };

/** The decoder for a file head: ffmpeg or libheif for the formats libvips lacks, else sharp. */
export function decoderOf(head: Buffer): ImageDecoder {
  if (head.length < 12) return { kind: "sharp" };
  // An SVG whose root element comes after a prolog: libvips looks for "<svg" in the first bytes only.
  const svgRoot = svgRootOffset(head);
  if (svgRoot !== undefined && svgRoot > 0) return { kind: "svg-root", offset: svgRoot };
  if (isIcns(head)) return { kind: "icns" };
  // BC6H/BC7 textures: ffmpeg's DDS decoder has no BPTC.
  if (bptcTextureOf(head)) return { kind: "dds-bptc" };
  const legacy = legacyFfmpegFormats.find((f) => f.matches(head))?.name;
  const format = legacy ?? extraImageFormatOf(head);
  if (format === "heif") return { kind: "libheif" };
  const inputArgs = format ? ffmpegInputs[format] : undefined;
  return format && inputArgs ? { kind: "ffmpeg", format, inputArgs } : { kind: "sharp" };
}

export interface DecodeOptions {
  ffmpeg: string;
  timeoutMs: number;
  maxPixels: number;
  signal?: AbortSignal;
}

/**
 * The downloaded file: its bytes when the job holds it in memory, and a path for decoders that read files (ffmpeg,
 * libheif, the decoder threads), written on first use when the bytes were in memory.
 */
export interface ImageFile {
  bytes?: Buffer;
  path(): Promise<string>;
}

/** A file already on disk. */
export const imageFileAt = (file: string): ImageFile => ({ path: () => Promise.resolve(file) });

/** The whole file's bytes: from memory, or read from disk. */
const bytesOf = async (file: ImageFile): Promise<Buffer> => file.bytes ?? (await readFile(await file.path()));

/** What sharp reads for one job: the source file, or the PNG another decoder made of it (converted once). */
export interface ImageSource {
  input: string | Buffer;
  decoder: ImageDecoder["kind"];
  /** The picture's own displayed size when what is decoded is smaller (a HEIF's embedded thumbnail). */
  declared?: { width: number; height: number };
}

/** A decoded still is far below this as PNG at source size (the pixel limit bounds it). */
const maxPngBytes = 256 * 1024 * 1024;

/** One frame of a local image file as PNG bytes, through the one demuxer named (never format probing). */
async function ffmpegToPng(file: string, inputArgs: readonly string[], options: DecodeOptions): Promise<Buffer> {
  const maxAlloc = stillMaxAllocBytes(options.maxPixels);
  const result = await runProcess(options.ffmpeg, [
    "-hide_banner", "-nostdin", "-loglevel", "error",
    "-protocol_whitelist", "file", "-max_pixels", String(options.maxPixels), ...engineBoundArgs(maxAlloc),
    ...inputArgs, "-i", file, "-frames:v", "1", ...ffmpegOutputBoundArgs(), "-f", "image2pipe", "-c:v", "png", "pipe:1",
  ], {
    timeoutMs: options.timeoutMs,
    maxStdoutBytes: maxPngBytes,
    addressSpaceBytes: engineAddressSpaceBytes(maxAlloc),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (result.code !== 0 || result.stdout.length === 0) throw new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", result.stderr.trim());
  return result.stdout;
}

/** The JP2 header box (and the ICC profile in it) comes before the codestream: read this much of the file for it. */
const jp2HeaderBytes = maxJp2IccBytes + 64 * 1024;

/** The first `bytes` of a local file. */
async function readHead(file: string, bytes: number): Promise<Uint8Array> {
  const handle = await open(file, "r");
  try {
    const { buffer, bytesRead } = await handle.read(new Uint8Array(bytes), 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The decoder thread's limits: the engines' time limit and the job's abort signal. */
function threadOptions(options: DecodeOptions): { timeoutMs: number; signal?: AbortSignal } {
  return options.signal ? { timeoutMs: options.timeoutMs, signal: options.signal } : { timeoutMs: options.timeoutMs };
}

/** Converts the file once when sharp cannot read it (ffmpeg or libheif to PNG); sharp's formats stay as they are. */
export async function openImage(file: string, head: Buffer, options: DecodeOptions): Promise<ImageSource> {
  return openImageWith(decoderOf(head), imageFileAt(file), options);
}

/** The file made readable for sharp by one named decoder. */
export async function openImageWith(decoder: ImageDecoder, file: ImageFile, options: DecodeOptions): Promise<ImageSource> {
  // A picture behind bytes that are not its own (junk before a JPEG's SOI, an icon set's largest PNG): sharp reads that part.
  if (decoder.kind === "slice") return { input: (await bytesOf(file)).subarray(decoder.offset, decoder.end), decoder: "sharp" };
  if (decoder.kind === "icns") {
    const bytes = await bytesOf(file);
    const member = largestIcnsPng(bytes);
    if (!member) throw new RunnerError("UNSUPPORTED_MEDIA", "the icon set holds no PNG member", "only PNG members are decoded");
    return { input: bytes.subarray(member.offset, member.end), decoder: "sharp" };
  }
  if (decoder.kind === "tiff-legacy") {
    const { image, declared } = await legacyTiffToImage(await file.path(), options.maxPixels, threadOptions(options));
    return { input: image, decoder: "tiff-legacy", ...(declared ? { declared } : {}) };
  }
  if (decoder.kind === "dds-bptc") {
    const { png, declared } = await bptcDdsToPng(await file.path(), options.maxPixels, threadOptions(options));
    return { input: png, decoder: "dds-bptc", ...(declared ? { declared } : {}) };
  }
  if (decoder.kind === "ffmpeg") {
    const path = await file.path();
    const png = await ffmpegToPng(path, decoder.inputArgs, options);
    // ffmpeg drops a JPEG 2000's ICC profile: attached again, sharp converts the colours to sRGB (jp2-icc.ts).
    const icc = decoder.format === "jpeg2000" ? jp2IccProfile(file.bytes?.subarray(0, jp2HeaderBytes) ?? (await readHead(path, jp2HeaderBytes))) : undefined;
    return { input: icc ? pngWithIccProfile(png, icc) : png, decoder: "ffmpeg" };
  }
  if (decoder.kind === "libheif") {
    const picture = await decodeHeif(await file.path(), options);
    return { input: picture.input, decoder: "libheif", ...(picture.from === "thumbnail" ? { declared: picture.declared } : {}) };
  }
  // The document from its root element (sharp reads the SVG as a string; the size was capped by the download).
  if (decoder.kind === "svg-root") return { input: (await bytesOf(file)).subarray(decoder.offset), decoder: "sharp" };
  return { input: file.bytes ?? (await file.path()), decoder: "sharp" };
}

/**
 * sharp's input options. A truncated or slightly damaged file gives what it holds (failOn "none": libjpeg's
 * "premature end" or a bad PNG CRC are warnings). The pixel limit is the decode limit, except where the
 * caller established that the loader shrinks on load (sourcePixelLimit, see shrinkOnLoadPixels).
 */
function sharpOptions(maxPixels: number, shrinksOnLoad: boolean): SharpOptions {
  return { limitInputPixels: shrinksOnLoad ? shrinkOnLoadMaxSourcePixels : maxPixels, failOn: "none" };
}

/** sharp's metadata of the source or of the decoded frame (the same numbers). Reads headers only. */
export async function readImageMetadata(source: ImageSource, maxPixels: number): Promise<Metadata> {
  // The header read never allocates pixels: the limit that matters is checked by the caller (checkPixels).
  return sharp(source.input, sharpOptions(maxPixels, source.decoder === "sharp")).metadata();
}

/**
 * Whether the decode of a width x height source to a box fits the pixel limit: directly, or through JPEG or
 * WebP shrink-on-load (lossless JPEG and the converted formats never shrink on load).
 */
export function fitsDecodeLimit(source: Pick<ImageSource, "decoder">, format: string | undefined, width: number, height: number, box: number, maxPixels: number): boolean {
  if (width * height <= maxPixels) return true;
  if (source.decoder !== "sharp" || (format !== "jpeg" && format !== "webp")) return false;
  return width * height <= shrinkOnLoadMaxSourcePixels && shrinkOnLoadPixels(format, width, height, box) <= maxPixels;
}

/** Decodes to a thumbnail-sized raster. */
export async function decodeImage(source: ImageSource, maxPx: number, maxPixels: number, shrinksOnLoad: boolean): Promise<Raster> {
  return decodeToRaster(source.input, maxPx, sharpOptions(maxPixels, shrinksOnLoad));
}

/** The API's image facts from sharp's metadata: displayed size, EXIF orientation, frames, animation. */
export function toImageMetadata(meta: Metadata, gainMap?: GainMapFacts): ImageMetadata {
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
    // libvips found the gain-map picture; the header says how it was announced.
    ...(meta.gainMap ? { hdrGainMap: gainMap ?? { signalledBy: [] } } : {}),
  };
}
