import { encode } from "blurhash";
import type { PhotonImage } from "@cf-wasm/photon/workerd";
import { placeholderComponentsLong, placeholderComponentsShort, placeholderSampleMaxPx } from "../../config/limits.ts";
import { sampleRgba } from "./sample.ts";

/** Blurhash of a small downscale; more components along the longer side. */
export function blurhashPlaceholder(img: PhotonImage): string {
  const { pixels, width, height } = sampleRgba(img, placeholderSampleMaxPx);
  const landscape = width >= height;
  const cx = landscape ? placeholderComponentsLong : placeholderComponentsShort;
  const cy = landscape ? placeholderComponentsShort : placeholderComponentsLong;
  return encode(new Uint8ClampedArray(pixels.buffer, pixels.byteOffset, pixels.length), width, height, cx, cy);
}
