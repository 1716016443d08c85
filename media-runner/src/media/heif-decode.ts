/**
 * HEVC-coded HEIF/HEIC stills through libheif's heif-convert (Debian package libheif-examples, with libde265):
 * the prebuilt libvips in sharp has libheif without an HEVC decoder, and ffmpeg 5.1 has no HEIF demuxer.
 * heif-convert writes the primary image (orientation applied) to a PNG file beside the source; sharp reads it.
 */
import { accessSync, constants } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, delimiter, dirname, join } from "node:path";
import { RunnerError } from "../errors.ts";
import { engineAddressSpaceBytes, stillMaxAllocBytes } from "./limits.ts";
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
}

/** Decodes `file` to a PNG next to it and returns the PNG's path (in the job's temporary folder). */
export async function heifToPngFile(file: string, options: HeifOptions): Promise<string> {
  const command = findHeifConvert();
  if (command === null) throw new RunnerError("UNSUPPORTED_MEDIA", "HEIC/HEIF stills need heif-convert", `install ${heifConvertPackage}`);
  const out = `${file}-heif.png`;
  const result = await runProcess(command, [file, out], {
    timeoutMs: options.timeoutMs,
    maxStdoutBytes: 64 * 1024,
    // Same bound as an ffmpeg still decode: libraries plus a few pictures at the pixel limit.
    addressSpaceBytes: engineAddressSpaceBytes(stillMaxAllocBytes(options.maxPixels)),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (result.code !== 0) throw new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", result.stderr.trim());
  // A file with several top-level images is written as <name>-1.png, <name>-2.png...: the first is the primary.
  const stem = basename(out, ".png");
  const written = (await readdir(dirname(out))).filter((name) => name === `${stem}.png` || name === `${stem}-1.png`).sort();
  if (written.length === 0) throw new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", "heif-convert wrote no image");
  return join(dirname(out), written[0]!);
}
