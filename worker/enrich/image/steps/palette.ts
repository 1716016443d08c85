import type { PhotonImage } from "@cf-wasm/photon/workerd";
import { dominantColor } from "../../../../shared/media/dominant-color.ts";
import { paletteSampleMaxPx } from "../../../limits.ts";
import { sampleRgba } from "./sample.ts";

/** "#rrggbb" of the most common colour (histogram mode, see shared/media/dominant-color.ts). */
export function dominantHex(img: PhotonImage): string {
  const { pixels, width, height } = sampleRgba(img, paletteSampleMaxPx);
  return dominantColor(pixels, width, height);
}
