/**
 * What the tests sign for themselves (testkit/c2pa-signed-fixtures.ts makes the files): the formats, and per
 * variant the signing CA and the declared actions. Free of Node imports, so the Worker's tests read it too.
 */
import type { TestCa } from "./c2pa-test-signer.ts";
import type { ExiftoolReading } from "./provenance-fixtures.ts";

export const signedFormats = {
  jpg: "image/jpeg", png: "image/png", webp: "image/webp", mp4: "video/mp4",
  wav: "audio/wav", mp3: "audio/mpeg", avif: "image/avif", heic: "image/heic",
} as const;
export type SignedFormat = keyof typeof signedFormats;

const sourceTypes = "http://cv.iptc.org/newscodes/digitalsourcetype/";
export const claimGenerator = "media-inspect tests 1.0";

/** What each variant declares and how it was signed; the tests hold the service to exactly this. */
export const signedVariants = {
  ai: { ca: "trusted", actions: [{ action: "c2pa.created", digitalSourceType: `${sourceTypes}trainedAlgorithmicMedia` }], tamper: false },
  capture: { ca: "trusted", actions: [{ action: "c2pa.created", digitalSourceType: `${sourceTypes}digitalCapture` }], tamper: false },
  // An edit must follow the opening of its parent (the base file, as an ingredient).
  composite: { ca: "trusted", actions: [{ action: "c2pa.opened", parameters: { ingredientIds: ["parent"] } }, { action: "c2pa.edited", digitalSourceType: `${sourceTypes}compositeWithTrainedAlgorithmicMedia` }], tamper: false },
  untrusted: { ca: "untrusted", actions: [{ action: "c2pa.created", digitalSourceType: `${sourceTypes}digitalCapture` }], tamper: false },
  tampered: { ca: "trusted", actions: [{ action: "c2pa.created", digitalSourceType: `${sourceTypes}trainedAlgorithmicMedia` }], tamper: true },
  // A capture whose file also carries EXIF/XMP or MP4 tags (exiftool's and ffmpeg's, testkit/provenance-fixtures.ts).
  tagged: { ca: "trusted", actions: [{ action: "c2pa.created", digitalSourceType: `${sourceTypes}digitalCapture` }], tamper: false },
} as const satisfies Record<string, { ca: TestCa; actions: { action: string; digitalSourceType?: string; parameters?: unknown }[]; tamper: boolean }>;
export type SignedVariant = keyof typeof signedVariants;

/** The served name of one signed file: signed-<variant>.<ext>. */
export const signedFile = (variant: SignedVariant, format: SignedFormat) => `signed-${variant}.${format}`;

/** The tagged variant's bases: the provenance fixtures with capture and rights tags in their head. */
export const taggedBases: Partial<Record<SignedFormat, string>> = { jpg: "tagged-camera.jpg", png: "tagged.png", webp: "tagged.webp", mp4: "tagged.mp4" };

export const signedFiles = Object.keys(signedVariants).flatMap((v) =>
  Object.keys(signedFormats).filter((f) => v !== "tagged" || taggedBases[f as SignedFormat])
    .map((f) => ({ file: signedFile(v as SignedVariant, f as SignedFormat), variant: v as SignedVariant, format: f as SignedFormat })));

/** The SDK Reader's view of one signed file. */
export interface SdkReading {
  state: string;
  failures: string[];
  claimGenerator?: string;
  issuer?: string;
  time?: string;
  actions: string[];
  digitalSourceType?: string;
  /** exiftool's reading of the signed file's tags (the tagged variant). */
  exiftool?: ExiftoolReading;
}
