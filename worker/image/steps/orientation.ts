/** RGBA pixels with their size. */
export interface RgbaImage { pixels: Uint8Array; width: number; height: number }

/**
 * Applies an EXIF orientation (2-8) to RGBA pixels so they display upright. Exact pixel moves, unlike
 * photon's `rotate`, which resamples at any angle and blends edges. Meant for thumbnail-sized images.
 */
export function orientRgba(src: RgbaImage, orientation: number): RgbaImage {
  if (orientation < 2 || orientation > 8) return src;
  const { width: w, height: h, pixels } = src;
  const swap = orientation >= 5;
  const outW = swap ? h : w;
  const outH = swap ? w : h;
  const out = new Uint8Array(pixels.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const [dx, dy] = destination(orientation, x, y, w, h);
      out.set(pixels.subarray((y * w + x) * 4, (y * w + x) * 4 + 4), (dy * outW + dx) * 4);
    }
  }
  return { pixels: out, width: outW, height: outH };
}

/** Where stored pixel (x, y) lands in the upright image (EXIF 2.32, tag 0x0112). */
function destination(orientation: number, x: number, y: number, w: number, h: number): [number, number] {
  switch (orientation) {
    case 2: return [w - 1 - x, y]; // mirrored horizontally
    case 3: return [w - 1 - x, h - 1 - y]; // rotated 180
    case 4: return [x, h - 1 - y]; // mirrored vertically
    case 5: return [y, x]; // transposed
    case 6: return [h - 1 - y, x]; // stored rotated 90 counter-clockwise: turn clockwise
    case 7: return [h - 1 - y, w - 1 - x]; // transverse
    default: return [y, w - 1 - x]; // 8: turn counter-clockwise
  }
}
