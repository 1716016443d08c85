import { z } from "zod";

// Who made a file, may it be published, where was it taken, and what its makers declared about how it was made.
// Every key appears only when the file holds it; nothing here is ever guessed from pixels or samples.

export const Capture = z.object({
  takenAt: z.string().optional().meta({
    description: "ISO 8601. EXIF DateTimeOriginal with OffsetTimeOriginal (local time without an offset when the file gives none); "
      + "MP4/MOV: com.apple.quicktime.creationdate, else the movie header's creation time (UTC); audio: the tag's date",
  }),
  device: z.object({
    make: z.string().optional(),
    model: z.string().optional(),
    software: z.string().optional(),
  }).optional().meta({ description: "Camera or phone (EXIF Make/Model/Software, QuickTime make/model/software)" }),
  location: z.object({
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    altitudeM: z.number().optional(),
  }).optional().meta({ description: "WGS 84 decimal degrees from EXIF GPS, XMP or the QuickTime ISO 6709 string" }),
}).meta({ id: "Capture" });
export type Capture = z.infer<typeof Capture>;

export const Rights = z.object({
  creator: z.string().optional().meta({ description: "EXIF Artist, IPTC By-line, XMP dc:creator, MP4 ©ART, ID3 TPE1, Vorbis ARTIST" }),
  copyright: z.string().optional().meta({ description: "EXIF Copyright, IPTC CopyrightNotice, XMP dc:rights, MP4 cprt/©cpy, ID3 TCOP" }),
  license: z.string().optional().meta({ description: "A URL: XMP cc:license or xmpRights:WebStatement (the Vorbis LICENSE comment when it is one)" }),
  credit: z.string().optional().meta({ description: "IPTC Credit / XMP photoshop:Credit" }),
  usageTerms: z.string().optional().meta({ description: "XMP xmpRights:UsageTerms" }),
}).meta({ id: "Rights" });
export type Rights = z.infer<typeof Rights>;

export const C2paManifest = z.object({
  claimGenerator: z.string().optional().meta({ description: "The tool that wrote the claim" }),
  signer: z.string().optional().meta({ description: "The signing certificate's issuer / subject organisation" }),
  signedAt: z.string().optional().meta({ description: "The signature's time stamp (ISO 8601), when it has one" }),
  actions: z.array(z.string()).meta({ description: "Action names of the c2pa.actions assertions, e.g. c2pa.created, c2pa.edited" }),
  digitalSourceType: z.string().optional().meta({ description: "The IPTC digital source type the created action declares" }),
}).meta({ id: "C2paManifest" });

export const C2pa = z.object({
  present: z.boolean().meta({ description: "A C2PA manifest store is embedded in the bytes read, or was read from the sidecar `manifestUrl`" }),
  manifestUrl: z.string().max(2048).optional().meta({
    description: "A sidecar manifest store (.c2pa) the file declares (XMP dcterms:provenance) or its response links to "
      + "(Link: <...>; rel=\"c2pa-manifest\"), when none is embedded. Its signature is checked; its hashes bind it to "
      + "the asset's bytes, which the SDK can only check for an embedded store, so `validation` is absent unless the "
      + "signature fails. failures `manifest.inaccessible` when it could not be fetched",
  }),
  activeManifest: C2paManifest.optional(),
  validation: z.enum(["trusted", "valid", "invalid"]).optional().meta({
    description: "C2PA validation by the Content Authenticity Initiative's SDK: valid (signature and hashes check out), "
      + "trusted (and the signer chains to the configured trust list), invalid (see failures). Absent when the hashes "
      + "could not be checked because the asset was not read whole",
  }),
  failures: z.array(z.string()).optional().meta({ description: "Validation failure codes, e.g. assertion.dataHash.mismatch" }),
}).meta({ id: "C2pa" });
export type C2pa = z.infer<typeof C2pa>;

export const Provenance = z.object({
  c2pa: C2pa,
  aiGenerated: z.boolean().nullable().meta({
    description: "true only when a declaration says so (C2PA or IPTC digital source type trainedAlgorithmicMedia, "
      + "compositeWithTrainedAlgorithmicMedia or their synthetic variants); false when a C2PA manifest declares a capture; "
      + "null when nothing is declared. Never a guess from pixels",
  }),
  aiBasis: z.string().optional().meta({ description: "The declaration behind aiGenerated, e.g. `c2pa:digitalSourceType:...` or `iptc:...`" }),
}).meta({ id: "Provenance" });
export type Provenance = z.infer<typeof Provenance>;

/** What the provenance stage writes: the three fact groups, each absent when the file holds none. */
export const ProvenanceFacts = z.object({
  capture: Capture.optional(),
  rights: Rights.optional(),
  provenance: Provenance,
});
export type ProvenanceFacts = z.infer<typeof ProvenanceFacts>;
