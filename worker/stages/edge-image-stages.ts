import type { Config } from "../config/config.ts";
import { addTransfer } from "../record/transfer.ts";
import { budgetAfter, fetchPolicy, readCapped, safeFetch } from "../fetch/index.ts";
import { parseContentRange } from "../../shared/bytes/content-range.ts";
import { errors } from "../errors/api-error.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { StageName } from "../../shared/schemas/stages.ts";
import { applyEngineResult } from "../record/stage-state.ts";
import { edgeFormats, processImageAtEdge } from "../image/index.ts";
import { previewRevision, storeThumbnail, type PreviewEnv } from "../previews/preview-store.ts";

/**
 * Whether the Worker itself can produce this image's previews (format, header facts and size within the
 * edge limits). Decided from the probe alone, so a file the edge would refuse (e.g. CMYK JPEG) is queued for
 * the media runner at the first inspection, whatever the profile: `fast` does not come back to re-plan it.
 */
export function isEdgeImage(record: ResourceRecord, config: Config): boolean {
  if (record.category !== "image" || record.results.edgeRefused) return false;
  const format = record.probe.mime.split("/")[1] ?? "";
  const edgeFormat = edgeFormats[format === "jpg" ? "jpeg" : format];
  const image = record.results.image;
  const refused = image ? edgeFormat?.refuse?.({ ...image, format, width: image.width ?? 0, height: image.height ?? 0 }) : undefined;
  const size = record.probe.sizeBytes;
  const pixels = (image?.width ?? 0) * (image?.height ?? 0);
  return edgeFormat !== undefined && refused === undefined && (size === undefined || size <= config.MAX_EDGE_IMAGE_BYTES) &&
    pixels <= config.MAX_DECODE_PIXELS;
}

export type EdgeImageRun = "done" | "needs-runner";

/**
 * Downloads the image (capped) and runs the edge pipeline for `stages` (the pending stages the plan gives the
 * edge); writes the thumbnail to R2 and each stage's result into the record. Formats or sizes photon should
 * not handle come back as "needs-runner". Throws ApiError only when the download itself fails (e.g. 413 when
 * the streamed body passes the cap despite a smaller header).
 */
export async function runEdgeImageStages(
  record: ResourceRecord,
  stages: readonly StageName[],
  config: Config,
  previews: PreviewEnv,
  head?: Uint8Array,
): Promise<EdgeImageRun> {
  const started = performance.now();
  const bytes = await imageBytes(record, config, head);
  if (bytes.byteLength > config.MAX_EDGE_IMAGE_BYTES) {
    record.results.edgeRefused = `larger than ${config.MAX_EDGE_IMAGE_BYTES} bytes`;
    return "needs-runner";
  }
  const fetchedAt = performance.now();
  const outcome = await processImageAtEdge(bytes, record.probe.mime, {
    thumbnailMaxPx: config.THUMBNAIL_MAX_PX,
    maxDecodePixels: config.MAX_DECODE_PIXELS,
  });
  if (!outcome.ok) {
    // photon refuses damaged files libvips and ffmpeg still read (a truncated scan, junk before the SOI, a
    // segment length past its segment): a decode failure goes to the runner too, which ends the stages failed
    // with its own reason when no decoder there reads the pixels either.
    record.results.edgeRefused = outcome.reason === "decode-failed" ? `the edge could not decode it: ${outcome.detail}` : outcome.detail;
    return "needs-runner";
  }
  const { result } = outcome;
  const thumbnail = await storeThumbnail(previews, record.key, previewRevision(record), result.thumbnail);
  applyEngineResult(record, {
    stages,
    output: {
      metadata: { image: { colorSpace: result.colorSpace, hasAlpha: result.hasAlpha, width: result.width, height: result.height } },
      thumbnail,
      placeholder: { type: "blurhash", value: result.placeholder },
      dominantColor: result.dominantColor,
      palette: result.palette.colors,
    },
    engine: "edge",
    durationMs: performance.now() - fetchedAt,
    missingReason: "the edge image pipeline produced no result",
  });
  record.timings.preview = Math.round(performance.now() - started);
  return "done";
}

/**
 * The image's bytes, pulling each byte from the origin once: the probe's head is reused, and when the origin
 * serves ranges only the rest is requested. Otherwise one capped GET of the whole file.
 */
async function imageBytes(record: ResourceRecord, config: Config, head?: Uint8Array): Promise<Uint8Array> {
  const size = record.probe.sizeBytes;
  if (head && size !== undefined && head.byteLength >= size) return head.subarray(0, size);
  // What the inspection has left of its origin budget (the record's tally says what was spent).
  const policy = fetchPolicy(config, budgetAfter(record.transfer));
  const resume = head !== undefined && head.byteLength > 0 && record.probe.streamable && size !== undefined;
  if (resume) {
    const { response, redirects } = await safeFetch(record.probe.finalUrl, { headers: { range: `bytes=${head.byteLength}-` } }, policy);
    addTransfer(record, { requests: 1, redirects });
    const range = parseContentRange(response.headers.get("content-range"));
    if (response.status === 404) throw errors.notFound();
    if (response.status === 206 && range?.start === head.byteLength && range.size === size) {
      const rest = await readCapped(response, config.MAX_SOURCE_BYTES, policy.deadline);
      addTransfer(record, { bytes: rest.byteLength });
      const bytes = new Uint8Array(head.byteLength + rest.byteLength);
      bytes.set(head);
      bytes.set(rest, head.byteLength);
      return bytes;
    }
    // Not the rest we asked for (the origin changed its mind about ranges, or lies): read the whole file.
    await response.body?.cancel();
  }
  const { response, redirects } = await safeFetch(record.probe.finalUrl, {}, policy);
  addTransfer(record, { requests: 1, redirects });
  if (response.status === 404) throw errors.notFound();
  if (response.status !== 200) {
    await response.body?.cancel();
    throw errors.badGateway(`The remote server answered ${response.status}.`);
  }
  const whole = await readCapped(response, config.MAX_SOURCE_BYTES, policy.deadline);
  addTransfer(record, { bytes: whole.byteLength });
  return whole;
}
