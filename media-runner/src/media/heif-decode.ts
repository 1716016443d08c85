/**
 * HEVC-coded HEIF/HEIC stills through libheif's heif-convert (Debian package libheif-examples, with libde265):
 * the prebuilt libvips in sharp has libheif without an HEVC decoder, and ffmpeg 5.1 has no HEIF demuxer.
 * heif-convert writes the primary image (orientation applied) to a PNG file beside the source; sharp reads it.
 * Before it starts, the pixel wall reads what the decoder will really decode (heif-wall.ts): a primary image
 * over the wall is never given to heif-convert (which has no pixel limit of its own); its embedded thumbnail,
 * when within the wall, is decoded instead by ffmpeg's HEVC decoder, which checks the coded size itself
 * (`-max_pixels`) before allocating a picture.
 */
import { accessSync, constants } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { basename, delimiter, dirname, join } from "node:path";
import { RunnerError } from "../errors.ts";
import { engineBoundArgs, engineDiagnostics, ffmpegOutputBoundArgs } from "./engine-args.ts";
import { heifItemData, type HeifItem, type PictureSize } from "./heif-items.ts";
import { planHeifDecode, type HeifDecodePlan } from "./heif-wall.ts";
import { engineAddressSpaceBytes, heifConvertAddressSpaceBytes, stillMaxAllocBytes } from "./engine-limits.ts";
import { runProcess } from "./run-process.ts";

/** The Debian package that ships heif-convert. */
export const heifConvertPackage = "libheif-examples";

let found: string | null | undefined;

/** HEIF_CONVERT_PATH, else heif-convert on PATH; null when neither is there. */
export function findHeifConvert(env: NodeJS.ProcessEnv = process.env): string | null {
  if (found !== undefined) return found;
  const candidates = [env.HEIF_CONVERT_PATH, ...(env.PATH ?? "").split(delimiter).filter((d) => d !== "").map((d) => join(d, "heif-convert"))];
  found = null;
  for (const file of candidates) {
    if (!file) continue;
    try {
      accessSync(file, constants.X_OK);
      found = file;
      break;
    } catch {
      // not here
    }
  }
  return found;
}

export interface HeifOptions {
  timeoutMs: number;
  maxPixels: number;
  signal?: AbortSignal;
  /** ffmpeg, for the embedded thumbnail of a picture over the wall. */
  ffmpeg?: string;
}

export interface HeifPicture {
  /** The PNG: a file beside the source (heif-convert), or bytes (the thumbnail, through ffmpeg). */
  input: string | Buffer;
  /** The primary image's displayed size (what the metadata reports, whichever picture was decoded). */
  declared: PictureSize;
  from: "primary" | "thumbnail";
}

/** A HEIF file is read whole to check it (the download cap bounds it). */
export async function decodeHeif(file: string, options: HeifOptions): Promise<HeifPicture> {
  const plan = planHeifDecode(await readFile(file), options.maxPixels);
  if (plan.decode === "thumbnail") return { input: await thumbnailToPng(file, plan, options), declared: plan.declared, from: "thumbnail" };
  return { input: await heifToPngFile(file, options), declared: plan.declared, from: "primary" };
}

/** Anticlockwise quarter turns and mirrors of the item, as ffmpeg filters in their order. */
function transformFilters(item: HeifItem): string[] {
  return item.transforms.flatMap((t) => {
    if (t.kind === "imir") return [t.axis === 0 ? "hflip" : "vflip"];
    return [[], ["transpose=cclock"], ["hflip", "vflip"], ["transpose=clock"]][t.quarterTurns]!;
  });
}

/** The thumbnail's data are a few kB; more is not a thumbnail. */
const maxThumbnailItemBytes = 4 * 1024 * 1024;
const annexBStart = Buffer.from([0, 0, 0, 1]);

/** The thumbnail item as an Annex B stream (its parameter sets, then its NAL units), decoded by ffmpeg to PNG. */
async function thumbnailToPng(file: string, plan: Extract<HeifDecodePlan, { decode: "thumbnail" }>, options: HeifOptions): Promise<Buffer> {
  if (!options.ffmpeg) throw new RunnerError("INTERNAL_ERROR", "no ffmpeg for the embedded thumbnail");
  const item = plan.thumbnail;
  const data = heifItemData(plan.file, await readFile(file), item, maxThumbnailItemBytes);
  const lengthSize = item.hvcc?.lengthSize ?? 4;
  const nals: Buffer[] = [...(item.hvcc?.nalUnits ?? [])];
  for (let offset = 0; offset + lengthSize <= data.length; ) {
    const length = data.readUIntBE(offset, lengthSize);
    nals.push(data.subarray(offset + lengthSize, offset + lengthSize + length));
    offset += lengthSize + length;
  }
  const filters = transformFilters(item);
  const maxAlloc = stillMaxAllocBytes(options.maxPixels);
  const result = await runProcess(options.ffmpeg, [
    "-hide_banner", "-nostdin", "-loglevel", "error",
    "-protocol_whitelist", "pipe", "-format_whitelist", "hevc", "-max_pixels", String(options.maxPixels), ...engineBoundArgs(maxAlloc),
    "-f", "hevc", "-i", "pipe:0", "-frames:v", "1", ...(filters.length > 0 ? ["-vf", filters.join(",")] : []),
    ...ffmpegOutputBoundArgs(), "-f", "image2pipe", "-c:v", "png", "pipe:1",
  ], {
    timeoutMs: options.timeoutMs,
    maxStdoutBytes: 64 * 1024 * 1024,
    addressSpaceBytes: engineAddressSpaceBytes(maxAlloc),
    stdin: Buffer.concat(nals.flatMap((nal) => [annexBStart, nal])),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (result.code !== 0 || result.stdout.length === 0) throw new RunnerError("CORRUPT_MEDIA", "the image's thumbnail could not be decoded", engineDiagnostics(result.stderr));
  return result.stdout;
}

/** Decodes `file` (checked by planHeifDecode) to a PNG next to it and returns the PNG's path (in the job's temporary folder). */
async function heifToPngFile(file: string, options: HeifOptions): Promise<string> {
  const command = findHeifConvert();
  if (command === null) throw new RunnerError("UNSUPPORTED_MEDIA", "HEIC/HEIF stills need heif-convert", `install ${heifConvertPackage}`);
  const out = `${file}-heif.png`;
  const result = await runProcess(command, [file, out], {
    timeoutMs: options.timeoutMs,
    maxStdoutBytes: 64 * 1024,
    // heif-convert's own libraries plus its pictures at the pixel limit (engine-limits.ts), well under the machine's memory.
    addressSpaceBytes: heifConvertAddressSpaceBytes(options.maxPixels),
    // glibc reserves 64 MiB of address space per malloc arena, up to 8 per core, for libde265's threads: two
    // arenas keep the reservation near what is used (a 43 Mpx grid needed 850 MiB of address space, 500 with two).
    extraEnv: { MALLOC_ARENA_MAX: "2" },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (result.code !== 0) throw new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", result.stderr.trim());
  // A file with several top-level images is written as <name>-1.png, <name>-2.png...: the first is the primary.
  const stem = basename(out, ".png");
  const written = (await readdir(dirname(out))).filter((name) => name === `${stem}.png` || name === `${stem}-1.png`).sort();
  if (written.length === 0) throw new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", "heif-convert wrote no image");
  return join(dirname(out), written[0]!);
}
