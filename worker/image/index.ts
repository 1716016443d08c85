/**
 * Edge image pipeline: header facts, thumbnail, blurhash placeholder and dominant colour computed
 * inside the Worker with photon (wasm). Files the edge cannot or should not decode come back as a
 * typed refusal so the caller can hand them to the media runner.
 */
export {
  type EdgeImageFailure,
  type EdgeImageOptions,
  type EdgeImageOutcome,
  type EdgeImageResult,
  processImageAtEdge,
} from "./process-image-at-edge.ts";
export { type ImageHeaderInfo, imageMetadataOf, readImageHeader } from "./header/read-image-header.ts";
export { readImageHeaderFrom } from "./header/header-bytes.ts";
export { edgeFormats } from "./edge-formats.ts";
export { defaultMaxDecodePixels, defaultThumbnailMaxPx } from "../config/limits.ts";
