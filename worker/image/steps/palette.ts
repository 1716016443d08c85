import type { PhotonImage } from "@cf-wasm/photon/workerd";
import { type Palette, quantizePalette } from "../../../shared/media/palette.ts";
import { paletteSampleMaxPx } from "../../config/limits.ts";
import { sampleRgba } from "./sample.ts";

/** Palette of a downscale of `img` (median cut + k-means, see shared/media/palette.ts; same code as the runner). */
export function paletteOf(img: PhotonImage): Palette {
  const { pixels, width, height } = sampleRgba(img, paletteSampleMaxPx);
  return quantizePalette(pixels, width, height);
}
