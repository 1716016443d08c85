import { type PhotonImage, resize, SamplingFilter } from "@cf-wasm/photon/workerd";
import { fitWithin } from "./fit.ts";

/** RGBA pixels of `img` downscaled to fit `maxPx` (the image itself when already that small). */
export function sampleRgba(img: PhotonImage, maxPx: number): { pixels: Uint8Array; width: number; height: number } {
  const size = fitWithin(img.get_width(), img.get_height(), maxPx);
  if (size.width === img.get_width() && size.height === img.get_height()) {
    return { pixels: img.get_raw_pixels(), ...size };
  }
  const small = resize(img, size.width, size.height, SamplingFilter.Triangle);
  try {
    return { pixels: small.get_raw_pixels(), ...size };
  } finally {
    small.free();
  }
}
