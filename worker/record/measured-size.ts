/**
 * A HEIF's size as the edge reads it is its `ispe` box, which a file may set to anything; the runner measures
 * the coded picture it decodes (or plans to decode from the codec's own parameters) and reports that with the
 * previews. Its width and height win, so the answer's dimensions are those of the picture its thumbnail shows.
 */
import type { ResourceRecord } from "../../shared/schemas/record.ts";

/** HEIF stills and sequences as the probe names them (sniffed or declared). */
const heifMimes: ReadonlySet<string> = new Set(["image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence"]);

export function isHeif(record: ResourceRecord): boolean {
  return heifMimes.has(record.probe.mime.toLowerCase());
}

/** Puts the runner's measured size in place of the header's; returns whether the record changed. */
export function applyMeasuredImageSize(record: ResourceRecord, measured: { width?: number; height?: number } | undefined): boolean {
  const image = record.results.image;
  if (!image || !isHeif(record) || !measured?.width || !measured.height) return false;
  if (image.width === measured.width && image.height === measured.height) return false;
  record.results.image = { ...image, width: measured.width, height: measured.height };
  // The stage's figures are now the runner's: `metadata.sources.dimensions` says "decoder", not "header".
  const stage = record.stages["metadata:image"];
  if (stage) stage.engine = "runner";
  return true;
}
