import { iccColorSpace } from "./icc-color-space.ts";

/** Colour facts read from a format's header chunks, without decoding pixels. */
export interface ColorFacts {
  colorSpace: string;
  /** The file declares an alpha channel or a transparent colour (not whether any pixel is transparent). */
  hasAlpha: boolean;
  /** Description of the embedded ICC profile, when there is one. */
  iccProfile?: string;
}

/** Colour space from an embedded ICC profile when it is readable, else the format's own answer. */
export function withIcc(icc: Uint8Array | undefined, fallback: string, hasAlpha: boolean): ColorFacts {
  const facts = icc ? iccColorSpace(icc) : undefined;
  if (!facts) return { colorSpace: fallback, hasAlpha };
  // A grey or CMYK file keeps that name even when its profile is, say, "Generic Gray Gamma 2.2".
  const colorSpace = fallback === "gray" || fallback === "cmyk" ? fallback : facts.colorSpace;
  return facts.description ? { colorSpace, hasAlpha, iccProfile: facts.description } : { colorSpace, hasAlpha };
}
