import { ascii, u32be } from "../../bytes/read-bytes.ts";

export interface IccFacts {
  /** Our colour-space name: a known RGB space ("srgb", "display-p3", ...) or the profile's data space. */
  colorSpace: string;
  /** The profile's own description text (e.g. "Display P3"), when it has one. */
  description?: string;
}

/** Maximum tag table entries we scan (real profiles have a few dozen). */
const maxIccTags = 256;

/** Fallback for RGB profiles without matching colorants: the description; "Display P3" before "sRGB". */
const knownRgbSpaces: ReadonlyArray<readonly [RegExp, string]> = [
  [/display\s*p3|\bp3\b|dci-?p3/i, "display-p3"],
  [/adobe\s*rgb|compatible with adobe/i, "adobe-rgb"],
  [/prophoto|romm/i, "prophoto-rgb"],
  [/2020/, "rec2020"],
  [/srgb|iec\s*61966-2[.-]1/i, "srgb"],
];

/**
 * Red, green and blue colorants (rXYZ/gXYZ/bXYZ, D50-adapted with Bradford as ICC requires) of the RGB
 * spaces we name. Matching them identifies a space whatever the profile calls itself (libvips ships
 * Display P3 as "sP3C", Apple as "Display P3").
 */
const knownColorants: ReadonlyArray<readonly [string, readonly number[]]> = [
  ["srgb", [0.4361, 0.2225, 0.0139, 0.3851, 0.7169, 0.0971, 0.1431, 0.0606, 0.7141]],
  ["display-p3", [0.5151, 0.2412, -0.001, 0.292, 0.6922, 0.0419, 0.1572, 0.0666, 0.7844]],
  ["adobe-rgb", [0.6098, 0.3111, 0.0195, 0.2052, 0.6257, 0.0609, 0.1492, 0.0632, 0.7448]],
  ["rec2020", [0.6734, 0.279, -0.0019, 0.1656, 0.6753, 0.03, 0.1251, 0.0456, 0.7973]],
  ["prophoto-rgb", [0.7977, 0.288, 0, 0.1352, 0.7119, 0, 0.0314, 0.0001, 0.8252]],
];

/** Colorant tolerance: profiles round s15Fixed16 values differently; the spaces differ by > 0.05. */
const colorantTolerance = 0.01;

/** ICC data colour space signatures (header bytes 16..20) to our names. */
const dataSpaces: Record<string, string> = { "RGB ": "rgb", GRAY: "gray", CMYK: "cmyk", "Lab ": "lab", "YCbr": "ycbcr" };

/**
 * Reads the colour space an ICC profile declares (ICC.1 header, colorant and `desc` tags). An RGB
 * profile whose colorants (or else description) we recognise gets that space's name; any other keeps
 * its data colour space ("rgb", "gray", "cmyk").
 * Returns undefined for bytes that are not an ICC profile.
 */
export function iccColorSpace(icc: Uint8Array): IccFacts | undefined {
  if (icc.length < 132 || ascii(icc, 36, 4) !== "acsp") return undefined;
  const space = dataSpaces[ascii(icc, 16, 4)] ?? ascii(icc, 16, 4).trim().toLowerCase();
  const description = findTag(icc, "desc", readDescription);
  const named = space === "rgb" ? (byColorants(icc) ?? (description ? byDescription(description) : undefined)) : undefined;
  const colorSpace = named ?? space;
  return description ? { colorSpace, description } : { colorSpace };
}

function byColorants(icc: Uint8Array): string | undefined {
  const xyz = ["rXYZ", "gXYZ", "bXYZ"].map((tag) => findTag(icc, tag, readXyz));
  if (xyz.some((v) => v === undefined)) return undefined;
  const measured = xyz.flat() as number[];
  return knownColorants.find(([, ref]) => ref.every((v, i) => Math.abs(v - measured[i]!) <= colorantTolerance))?.[0];
}

function byDescription(description: string): string | undefined {
  return knownRgbSpaces.find(([pattern]) => pattern.test(description))?.[1];
}

/** Runs `read` on the data of the first tag with this signature in the tag table. */
function findTag<T>(icc: Uint8Array, signature: string, read: (icc: Uint8Array, offset: number) => T | undefined): T | undefined {
  const tagCount = u32be(icc, 128) ?? 0;
  for (let i = 0; i < Math.min(tagCount, maxIccTags); i++) {
    const entry = 132 + i * 12;
    if (ascii(icc, entry, 4) === signature) return read(icc, u32be(icc, entry + 4) ?? 0);
  }
  return undefined;
}

/** XYZType: "XYZ ", 4 reserved bytes, then X, Y, Z as s15Fixed16Number. */
function readXyz(icc: Uint8Array, offset: number): number[] | undefined {
  if (ascii(icc, offset, 4) !== "XYZ ") return undefined;
  const values = [8, 12, 16].map((k) => u32be(icc, offset + k));
  return values.some((v) => v === undefined) ? undefined : values.map((v) => (v! | 0) / 65536);
}

/** The `desc` tag text: v2 `desc` type (ASCII) or v4 `mluc` (UTF-16BE, first record). */
function readDescription(icc: Uint8Array, offset: number): string | undefined {
  const type = ascii(icc, offset, 4);
  if (type === "desc") {
    const length = u32be(icc, offset + 8) ?? 0;
    return clean(ascii(icc, offset + 12, Math.min(length, icc.length - offset - 12)));
  }
  if (type === "mluc") {
    const length = u32be(icc, offset + 20) ?? 0;
    const start = offset + (u32be(icc, offset + 24) ?? 0);
    let s = "";
    for (let o = start; o + 1 < Math.min(start + length, icc.length); o += 2) s += String.fromCharCode((icc[o]! << 8) | icc[o + 1]!);
    return clean(s);
  }
  return undefined;
}

/** Longest description looked at: real ones are short, and the text is untrusted. */
const maxDescriptionLength = 256;

function clean(s: string): string | undefined {
  let end = Math.min(s.length, maxDescriptionLength);
  while (end > 0 && s.charCodeAt(end - 1) === 0) end--; // trailing NULs, without a backtracking pattern
  const t = s.slice(0, end).trim();
  return t.length > 0 ? t : undefined;
}
