import { defineStage } from "./definition.ts";

/**
 * Capture (time, device, location), rights (creator, copyright, licence) and provenance (C2PA manifest, AI
 * declaration) from the metadata in the bytes the probe read: EXIF/IPTC/XMP, the MP4 moov's user data, audio tags,
 * C2PA JUMBF. Always finished inline (done, or failed with the reason a parser refused the bytes).
 */
export const metadataProvenance = defineStage({
  name: "metadata:provenance",
  categories: ["image", "video", "audio"],
  // Finished inline; for an MP4/MOV whose user data lies past the head, by the edge's one tail read after the
  // first answer. The runner's metadata answer ends it (failed: no such facts) should a category revision
  // register it after the first inspection.
  engines: ["inline", "edge", "runner"],
  group: "metadata",
  runnerStage: "metadata",
  write: (output) => (output.provenance
    ? {
      provenance: output.provenance.provenance,
      ...(output.provenance.capture ? { capture: output.provenance.capture } : {}),
      ...(output.provenance.rights ? { rights: output.provenance.rights } : {}),
    }
    : undefined),
  fills: ["metadata.capture", "metadata.rights", "provenance"],
  // data.provenance is its own namespace (shared/projection/build-data.ts).
  show: (results) => ({ capture: results.capture, rights: results.rights }),
});
