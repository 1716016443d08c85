import { z } from "zod";
import { THUMBNAIL_MAX_PX } from "../../shared/limits.ts";
import { defaultMaxDecodePixels } from "./limits.ts";
import { int } from "./setting.ts";

/** Settings of the edge's image work (worker/image) and the oEmbed client (worker/oembed). */
export const EnrichConfigSchema = z.object({
  /** Longest side of generated thumbnails. Default 320 px. */
  THUMBNAIL_MAX_PX: int(THUMBNAIL_MAX_PX),
  /** Images up to this size are decoded at the edge; larger go to the media runner. Default 12 MiB. */
  MAX_EDGE_IMAGE_BYTES: int(12 * 1024 * 1024),
  /** Pixel bound checked from the header before decoding at the edge. Default ~7 MP: photon peaks near 12 bytes/pixel and the isolate has 128 MB. */
  MAX_DECODE_PIXELS: int(defaultMaxDecodePixels),
  /** Replaces the origin of every provider oEmbed endpoint (tests point it at a loopback fake). */
  OEMBED_BASE_URL: z.string().optional(),
});
export type EnrichConfig = z.infer<typeof EnrichConfigSchema>;
