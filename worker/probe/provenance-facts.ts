import type { MediaCategory } from "../../shared/shapes/media-category.ts";
import type { C2pa, Capture, ProvenanceFacts, Rights } from "../../shared/shapes/provenance.ts";
import { maxMetadataBytes } from "../config/limits.ts";
import { aiDeclaration } from "./ai-declaration.ts";
import { readAudioTags } from "./audio-tags.ts";
import { readC2pa } from "./c2pa-manifest.ts";
import { declarationsOfImageTags, text } from "./capture-rights.ts";
import { readImageTags } from "./image-tags.ts";
import { readMp4UserData } from "./mp4-user-data.ts";

export interface ProvenanceInput {
  category: MediaCategory;
  mime: string;
  /** Bytes held from the file's start (the probe's head and what header reads joined to it). */
  prefix: Uint8Array;
  /** The file's size, when known: a prefix that long is the whole file (C2PA hashes can be checked). */
  size?: number;
  /** An MP4/MOV moov read whole. */
  moov?: Uint8Array;
  /** PEM trust anchors for C2PA signers (config C2PA_TRUST_ANCHORS). */
  trustAnchors?: string;
}

export interface ProvenanceRead {
  facts: ProvenanceFacts;
  /** Readers that refused the bytes, and why (the stage's reason). */
  problems: string[];
  /** A sidecar manifest store the XMP names (dcterms:provenance), as written. */
  declaredManifest?: string;
}

/**
 * Capture, rights and provenance from bytes already read: exifr for images' EXIF/IPTC/XMP, the moov's user data
 * for MP4/MOV, music-metadata for audio tags, the C2PA SDK for Content Credentials. A reader that fails leaves
 * its facts out and says why; it never fails the others.
 */
export async function readProvenanceFacts(input: ProvenanceInput): Promise<ProvenanceRead> {
  const problems: string[] = [];
  const bytes = input.prefix.subarray(0, maxMetadataBytes);
  let capture: Capture | undefined;
  let rights: Rights | undefined;
  let iptcSourceType: string | undefined;
  let declaredManifest: string | undefined;
  if (input.category === "image") {
    const read = await readImageTags(input.mime, bytes);
    problems.push(...read.problems);
    const declared = read.tags ? declarationsOfImageTags(read.tags) : {};
    ({ capture, rights } = declared);
    iptcSourceType = declared.digitalSourceType;
    declaredManifest = text(read.tags?.dcterms?.provenance);
  } else if (input.moov) {
    try {
      ({ capture, rights } = readMp4UserData(input.moov));
    } catch (err) {
      problems.push(`mp4 user data: ${err instanceof Error ? err.message : String(err)}`);
    }
  } else if (input.category === "audio") {
    const read = await readAudioTags(input.mime, bytes);
    if (read.problem) problems.push(read.problem);
    ({ capture, rights } = read);
  }
  const whole = input.size !== undefined && input.prefix.length >= input.size;
  const c2pa: C2pa = await readC2pa(input.mime, bytes, whole, input.trustAnchors).catch((err: unknown) => {
    problems.push(`c2pa: ${err instanceof Error ? err.message : String(err)}`);
    // Only a store found by the byte search reaches the SDK.
    return { present: true };
  });
  const provenance = { c2pa, ...aiDeclaration(c2pa.activeManifest?.digitalSourceType, iptcSourceType) };
  return { facts: { ...(capture ? { capture } : {}), ...(rights ? { rights } : {}), provenance }, problems, ...(declaredManifest ? { declaredManifest } : {}) };
}
