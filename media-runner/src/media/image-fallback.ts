/**
 * A second decoder when the first cannot read a picture. Real files are often damaged in ways one library
 * refuses and another reads: junk before a JPEG's SOI (libvips finds no magic number), a segment length that
 * runs past its segment (libjpeg stops at the "extraneous bytes"; ffmpeg's mjpeg decoder resynchronises at the
 * next marker). So: sharp's formats fall back to the picture found after leading junk, then to ffmpeg's
 * demuxer for the format; ffmpeg's formats fall back to sharp. Every alternative names its demuxer (never
 * format probing) and keeps the same pixel and memory bounds as the first decoder.
 */
import type { Metadata } from "sharp";
import { isRunnerError } from "../errors.ts";
import { decodeImage, decoderOf, openImageWith, readImageMetadata, type DecodeOptions, type ImageDecoder, type ImageFile, type ImageSource } from "./image-decode.ts";
import type { Raster } from "./previews.ts";

const jpegStart = Buffer.from([0xff, 0xd8, 0xff]);
const pngStart = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const isTiff = (b: Buffer) => /^(II\*\0|MM\0\*)/.test(b.subarray(0, 4).toString("latin1"));

/** ffmpeg demuxers for the formats sharp reads first, by the magic number at the picture's start. */
const ffmpegSecondOpinion: ReadonlyArray<{ format: string; matches: (b: Buffer) => boolean; inputArgs: readonly string[] }> = [
  { format: "jpeg", matches: (b) => b.subarray(0, 3).equals(jpegStart), inputArgs: ["-f", "jpeg_pipe"] },
  { format: "png", matches: (b) => b.subarray(0, 8).equals(pngStart), inputArgs: ["-f", "png_pipe"] },
  { format: "tiff", matches: isTiff, inputArgs: ["-f", "tiff_pipe"] },
  { format: "webp", matches: (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP", inputArgs: ["-f", "webp_pipe"] },
  { format: "gif", matches: (b) => b.subarray(0, 4).toString("latin1") === "GIF8", inputArgs: ["-f", "gif"] },
];

/**
 * Where a JPEG or PNG starts inside the head when it does not start at byte 0 (a server's or an editor's bytes
 * in front of it). Two linear searches of the head (Buffer.indexOf); undefined when neither signature is there.
 */
export function embeddedPictureOffset(head: Buffer): number | undefined {
  const found = [head.indexOf(jpegStart, 1), head.indexOf(pngStart, 1)].filter((at) => at > 0);
  if (found.length === 0 || head.subarray(0, 3).equals(jpegStart) || head.subarray(0, 8).equals(pngStart)) return undefined;
  return Math.min(...found);
}

/** The decoders to try, in order, after `primary` fails on this head. */
export function fallbackDecoders(head: Buffer, primary: ImageDecoder): ImageDecoder[] {
  if (primary.kind === "ffmpeg") return [{ kind: "sharp" }];
  if (primary.kind !== "sharp") return [];
  const chain: ImageDecoder[] = [];
  // Old-style JPEG and 12-bit samples: TIFF layouts neither libvips nor ffmpeg decodes (tiff-legacy.ts).
  if (isTiff(head)) chain.push({ kind: "tiff-legacy" });
  const offset = embeddedPictureOffset(head);
  if (offset !== undefined) chain.push({ kind: "slice", offset });
  const second = ffmpegSecondOpinion.find((f) => f.matches(offset === undefined ? head : head.subarray(offset)));
  if (second) chain.push({ kind: "ffmpeg", format: second.format, inputArgs: second.inputArgs });
  return chain;
}

/** A failure no other decoder would change: a limit hit, a timeout, the job stopped. */
function isFinal(error: unknown, options: DecodeOptions): boolean {
  if (options.signal?.aborted) return true;
  return isRunnerError(error) && (error.code === "IMAGE_TOO_LARGE" || error.code === "PROCESSING_TIMEOUT");
}

const isPixelLimit = (error: unknown) => error instanceof Error && /pixel limit/i.test(error.message);

export interface OpenedImage {
  image: ImageSource;
  meta: Metadata;
  /** The decoders not yet tried, for a decode that fails after the header read. */
  rest: ImageDecoder[];
}

/** The first decoder in the chain whose header read succeeds; the first decoder's error when none does. */
export async function openReadableImage(file: ImageFile, head: Buffer, options: DecodeOptions): Promise<OpenedImage> {
  const primary = decoderOf(head);
  const chain = [primary, ...fallbackDecoders(head, primary)];
  let firstError: unknown;
  for (let i = 0; i < chain.length; i++) {
    try {
      const image = await openImageWith(chain[i]!, file, options);
      const meta = await readImageMetadata(image, options.maxPixels);
      return { image, meta, rest: chain.slice(i + 1) };
    } catch (error) {
      if (isFinal(error, options) || isPixelLimit(error)) throw error;
      if (i === 0) firstError = error;
    }
  }
  throw firstError;
}

/**
 * The thumbnail-sized raster from the opened image, or from the next decoder when those pixels do not decode
 * (a header that reads, a scan that does not). The alternatives decode under the plain pixel limit.
 */
export async function decodeReadableImage(opened: OpenedImage, file: ImageFile, options: DecodeOptions, box: number,
  shrinksOnLoad: boolean): Promise<Raster> {
  try {
    return await decodeImage(opened.image, box, options.maxPixels, shrinksOnLoad);
  } catch (error) {
    if (isFinal(error, options) || isPixelLimit(error)) throw error;
    for (const decoder of opened.rest) {
      try {
        return await decodeImage(await openImageWith(decoder, file, options), box, options.maxPixels, false);
      } catch (next) {
        if (isFinal(next, options)) throw next;
      }
    }
    throw error;
  }
}
