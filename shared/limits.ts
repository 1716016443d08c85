/**
 * Limits the Worker and the media runner must agree on, defined once. A file the Worker's probe accepts must
 * also be accepted by every runner stage, so both sides default to these values.
 */

/** Largest remote file accepted (announced size and streamed bytes): 50 MiB. */
export const MAX_SOURCE_BYTES = 50 * 1024 * 1024;

/** Longest side of generated thumbnails (SPEC default 320 px); smaller images are never upscaled. */
export const THUMBNAIL_MAX_PX = 320;
