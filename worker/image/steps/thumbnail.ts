import { PhotonImage, resize, SamplingFilter } from "@cf-wasm/photon/workerd";
import { fitWithin } from "./fit.ts";
import { orientRgba } from "./orientation.ts";

/**
 * Downscales a decoded image to fit `maxPx` (in displayed orientation) and turns it upright.
 * Triangle (bilinear, widened by the scale factor) averages every source pixel: about 4x slower than
 * nearest on a 12 MP photo but free of its aliasing, and 4x faster than Lanczos3 (measured).
 * Returns a new image the caller frees.
 */
export function downscaleUpright(img: PhotonImage, maxPx: number, orientation: number | undefined): PhotonImage {
  const storedW = img.get_width();
  const storedH = img.get_height();
  const target = fitWithin(storedW, storedH, maxPx);
  const scaled = target.width === storedW && target.height === storedH
    ? new PhotonImage(img.get_raw_pixels(), storedW, storedH)
    : resize(img, target.width, target.height, SamplingFilter.Triangle);
  if (orientation === undefined) return scaled;
  try {
    const upright = orientRgba({ pixels: scaled.get_raw_pixels(), width: scaled.get_width(), height: scaled.get_height() }, orientation);
    return new PhotonImage(upright.pixels, upright.width, upright.height);
  } finally {
    scaled.free();
  }
}

/** Encodes as WebP (photon/image 0.24 writes lossless VP8L; alpha is kept). */
export function encodeWebp(img: PhotonImage): Uint8Array {
  return img.get_bytes_webp();
}
