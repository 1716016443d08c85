import type { Provenance } from "../../shared/shapes/provenance.ts";

/**
 * The IPTC digital source type codes (cv.iptc.org/newscodes/digitalsourcetype) that declare generative AI,
 * and those that declare a capture. C2PA manifests and IPTC XMP use the same vocabulary.
 */
const aiCodes = new Set(["trainedAlgorithmicMedia", "compositeWithTrainedAlgorithmicMedia"]);
const captureCodes = new Set(["digitalCapture", "computationalCapture", "negativeFilm", "positiveFilm", "print", "compositeCapture"]);

/** The code at the end of a digital source type URI ("http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture"). */
function codeOf(uri: string): string {
  return uri.trim().replace(/\/+$/, "").split(/[/#]/).pop() ?? "";
}

/**
 * aiGenerated from declarations only: true when the C2PA manifest's or the IPTC field's digital source type is
 * a trained-model code; false when the manifest declares a capture; null when nothing is declared.
 */
export function aiDeclaration(c2paSourceType: string | undefined, iptcSourceType: string | undefined): Pick<Provenance, "aiGenerated" | "aiBasis"> {
  for (const [basis, uri] of [["c2pa", c2paSourceType], ["iptc", iptcSourceType]] as const) {
    if (uri && aiCodes.has(codeOf(uri))) return { aiGenerated: true, aiBasis: `${basis}:digitalSourceType:${codeOf(uri)}` };
  }
  if (c2paSourceType && captureCodes.has(codeOf(c2paSourceType))) {
    return { aiGenerated: false, aiBasis: `c2pa:digitalSourceType:${codeOf(c2paSourceType)}` };
  }
  return { aiGenerated: null };
}
