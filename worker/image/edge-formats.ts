import type { ImageHeaderInfo } from "./header/read-image-header.ts";

/** A format the edge decodes with photon, and the header facts that still send a file elsewhere. */
interface EdgeFormat {
  mime: string;
  /** Why this particular file cannot be handled at the edge, or undefined when it can. */
  refuse?: (header: ImageHeaderInfo) => string | undefined;
}

/**
 * Formats photon 0.4 (Rust `image` 0.24 built to wasm) decodes correctly in workerd, checked against
 * the fixtures in test/fixtures/images. It also panics on TIFF and AVIF and has no HEIC/SVG decoder;
 * those, and anything not listed, go to the media runner.
 */
export const edgeFormats: Readonly<Record<string, EdgeFormat>> = {
  png: { mime: "image/png" },
  jpeg: {
    mime: "image/jpeg",
    // photon turns CMYK into RGB without colour management: a sRGB (208,48,48) red comes back as
    // (225,14,20). libvips on the runner converts through an ICC profile.
    refuse: (h) => (h.colorSpace === "cmyk" ? "CMYK JPEG needs colour-managed conversion (media runner)" : undefined),
  },
  webp: { mime: "image/webp" },
  gif: { mime: "image/gif" },
};

/** The edge format a declared MIME type names, for bytes whose header could not be read. */
export function edgeFormatForMime(mime: string): string | undefined {
  const essence = mime.split(";")[0]!.trim().toLowerCase();
  const alias = essence === "image/jpg" || essence === "image/pjpeg" ? "image/jpeg" : essence;
  return Object.keys(edgeFormats).find((name) => edgeFormats[name]!.mime === alias);
}
