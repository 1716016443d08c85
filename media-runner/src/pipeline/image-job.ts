/**
 * Large or edge-undecodable images: the pixel count is checked from the header before anything is decoded
 * (decompression bombs are refused early), the bytes are held in memory up to inMemoryImageMaxBytes and streamed to a
 * temporary file beyond (memory does not grow with the file), and sharp decodes them once, straight to thumbnail size. A JPEG or WebP over the
 * pixel limit is still decoded when shrink-on-load brings what is held in memory under it (engine-limits.ts).
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import sharp from "sharp";
import type { RunnerRequest, RunnerResponse } from "../../../shared/shapes/runner.ts";
import { RunnerError, isRunnerError } from "../errors.ts";
import type { RemoteSource, SourceSeed } from "../fetch/remote-source.ts";
import { decoderOf, fitsDecodeLimit, imageFileAt, toImageMetadata, type ImageFile, type ImageSource } from "../media/image-decode.ts";
import { inMemoryImageMaxBytes } from "../media/engine-limits.ts";
import { decodeReadableImage, openReadableImage } from "../media/image-fallback.ts";
import { jpegGainMap } from "../../../shared/media/gain-map.ts";
import type { JobContext, Timings } from "./context.ts";
import { renderPreviews, wantsPreview, type StageOutcomes } from "./preview-stages.ts";

/** Bytes of the file start given to the header check; image headers (IHDR, SOF, VP8X) sit well inside. */
const headerProbeBytes = 64 * 1024;

/** Refuses a picture whose decode would pass the pixel limit, even with shrink-on-load to `box`. */
function checkPixels(meta: { width?: number; height?: number; format?: string } | undefined, source: Pick<ImageSource, "decoder">,
  box: number, maxPixels: number): void {
  const { width, height } = meta ?? {};
  if (width !== undefined && height !== undefined && !fitsDecodeLimit(source, meta?.format, width, height, box, maxPixels)) {
    throw new RunnerError("IMAGE_TOO_LARGE", `the image is ${width}x${height}, over the limit of ${maxPixels} pixels`);
  }
}

/** sharp reports every failure as a plain Error; name the cases a caller can act on. */
function sharpError(error: unknown): RunnerError {
  if (isRunnerError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) return new RunnerError("IMAGE_TOO_LARGE", "the image has more pixels than allowed", message);
  if (/unsupported image format/i.test(message)) return new RunnerError("UNSUPPORTED_MEDIA", "the image format is not supported", message);
  return new RunnerError("CORRUPT_MEDIA", "the image could not be decoded", message);
}

/**
 * The whole file in one request (what the edge holds is not asked for again), its first `headerProbeBytes`
 * handed to `check` before any byte goes on: a picture over the pixel limit is refused after its header
 * arrives, not after the download. One request instead of a header read and a chain of growing ones, each a
 * round trip to the origin.
 */
async function* checkedWhole(source: RemoteSource, check: (head: Buffer) => Promise<void>): AsyncGenerator<Buffer> {
  const held: Buffer[] = [];
  let heldBytes = 0;
  let checked = false;
  for await (const part of source.read(0, Infinity, { wholeRest: true })) {
    if (checked) {
      yield part;
      continue;
    }
    held.push(part);
    heldBytes += part.length;
    if (heldBytes < headerProbeBytes) continue;
    await check(Buffer.concat(held, heldBytes));
    checked = true;
    yield* held;
  }
  if (!checked) {
    await check(Buffer.concat(held, heldBytes));
    yield* held;
  }
}

/**
 * The whole file, its header checked first (checkedWhole): in one buffer when the origin gave its size and it is at
 * most inMemoryImageMaxBytes, with a path written on first use for decoders that read files; otherwise streamed to
 * a temporary file. `scratch` gives the job's temporary directory.
 */
async function download(source: RemoteSource, check: (head: Buffer) => Promise<void>, scratch: () => Promise<string>): Promise<ImageFile> {
  const parts = checkedWhole(source, check);
  const size = source.size;
  if (size === undefined || size > inMemoryImageMaxBytes) {
    const path = join(await scratch(), "source");
    await pipeline(Readable.from(parts), createWriteStream(path));
    return imageFileAt(path);
  }
  const bytes = Buffer.allocUnsafe(size);
  let held = 0;
  for await (const part of parts) {
    if (held + part.length > size) throw source.fail(new RunnerError("BAD_GATEWAY", "the remote server sent more than the file's size"));
    part.copy(bytes, held);
    held += part.length;
  }
  const whole = bytes.subarray(0, held);
  let written: Promise<string> | undefined;
  const writeOnce = async () => {
    const path = join(await scratch(), "source");
    await writeFile(path, whole);
    return path;
  };
  return { bytes: whole, path: () => (written ??= writeOnce()) };
}

/**
 * How far the job's first origin request should reach: all of the file when the edge's bytes already show a
 * header that passes the pixel check (the decode needs every byte, and one request is one round trip);
 * otherwise undefined (the header is read first, as usual).
 */
export async function imageFirstEnd(request: RunnerRequest, seed: SourceSeed | undefined, ctx: JobContext): Promise<number | undefined> {
  if (!seed || seed.bytes.length >= seed.size) return undefined;
  const meta = await sharp(seed.bytes, { limitInputPixels: false }).metadata().catch(() => undefined);
  if (meta?.width === undefined || meta.height === undefined) return undefined;
  try {
    checkPixels(meta, { decoder: decoderOf(seed.bytes).kind }, request.thumbnailMaxPx, ctx.config.maxDecodePixels);
  } catch {
    return undefined; // refused by the usual path, with its error, after the source opens
  }
  return seed.size - 1;
}

export async function runImageJob(
  request: RunnerRequest,
  source: RemoteSource,
  ctx: JobContext,
  timings: Timings,
): Promise<Omit<RunnerResponse, "timings">> {
  const maxPixels = ctx.config.maxDecodePixels;
  const box = request.thumbnailMaxPx;
  let head: Buffer = Buffer.alloc(0);
  const checkHeader = async (bytes: Buffer) => {
    head = bytes.subarray(0, headerProbeBytes);
    // No pixel limit on this call: it only reads the header, and must see the size to refuse it.
    // HEIF is checked on its coded pictures after the download (heif-wall.ts): its ispe may lie, and a picture
    // over the wall may still have an embedded thumbnail within it.
    if (decoderOf(head).kind === "libheif") return;
    const early = await sharp(head, { limitInputPixels: false }).metadata().catch(() => undefined);
    checkPixels(early, { decoder: decoderOf(head).kind }, box, maxPixels);
  };

  // The job's temporary directory, made only when a file is written.
  let dir: Promise<string> | undefined;
  const scratch = () => (dir ??= mkdtemp(join(tmpdir(), "media-runner-")));
  try {
    const file = await timings.time("download", () => download(source, checkHeader, scratch));
    const decode = { ffmpeg: ctx.binaries.ffmpeg, timeoutMs: ctx.config.processTimeoutMs, maxPixels, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    // The first decoder whose header read succeeds (image-fallback.ts: a damaged file may read in another).
    const opened = await timings.time("metadata", () => openReadableImage(file, head, decode).catch((e) => { throw sharpError(e); }));
    const { image, meta } = opened;
    checkPixels(meta, image, box, maxPixels);
    const shrinksOnLoad = (meta.width ?? 0) * (meta.height ?? 0) > maxPixels;
    const response: Omit<RunnerResponse, "timings"> = {};
    // A HEIF's size in its header (ispe) may lie, and it is all the edge reads: the size measured on the coded
    // picture is reported with a HEIF's previews too, so the edge can put it in place of the header's.
    if (request.stages.includes("metadata") || image.decoder === "libheif") {
      const facts = toImageMetadata(meta, jpegGainMap(head));
      // The preview came from a smaller embedded picture: the image's own size is the one reported.
      response.metadata = { image: image.declared ? { ...facts, width: image.declared.width, height: image.declared.height } : facts };
    }
    const stages: StageOutcomes = request.stages.includes("metadata") ? { metadata: { status: "done" } } : {};
    if (!wantsPreview(request)) return { ...response, stages };
    // A header that reads but pixels that do not decode: the metadata stands, the previews fail with a reason.
    const rendered = await renderPreviews(
      request,
      () => timings.time("decode", () => decodeReadableImage(opened, file, decode, box, shrinksOnLoad).catch((e) => { throw sharpError(e); })),
      timings,
      (error) => source.failure !== undefined || ctx.signal.aborted || (isRunnerError(error) && error.code === "PROCESSING_TIMEOUT"),
    );
    return { ...response, ...rendered.previews, stages: { ...stages, ...rendered.stages } };
  } finally {
    // A directory that could not be made has nothing to remove (and must not hide the job's own error).
    if (dir) await dir.then((made) => rm(made, { recursive: true, force: true }), () => undefined);
  }
}
