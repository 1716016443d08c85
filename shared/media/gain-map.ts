/**
 * HDR gain maps in JPEG (Ultra HDR, Adobe's gain map, ISO 21496-1): a primary SDR picture whose header announces
 * a second, gain-map JPEG after it (found through the MPF index). The announcement is an XMP packet in the
 * hdr-gain-map namespace (hdrgm:Version) and/or an APP2 segment named by the ISO 21496-1 URN. One walk over the
 * marker segments before the scan; each segment is searched once (no regular expression over untrusted text).
 */
export interface GainMapFacts {
  /** How the primary picture announces the gain map. */
  signalledBy: ("xmp-hdrgm" | "iso-21496-1")[];
  /** hdrgm:Version of the XMP announcement, e.g. "1.0". */
  version?: string;
}

const xmpId = "http://ns.adobe.com/xap/1.0/\0";
const hdrgmNamespace = "http://ns.adobe.com/hdr-gain-map/1.0/";
const isoUrn = "urn:iso:std:iso:ts:21496:-1";
/** Longest version string kept. */
const maxVersionChars = 16;

const latin1 = (b: Uint8Array, start: number, end: number) => {
  let s = "";
  for (let i = start; i < end; i++) s += String.fromCharCode(b[i]!);
  return s;
};

function versionIn(xmp: string): string | undefined {
  for (const key of ['hdrgm:Version="', "hdrgm:Version='", "<hdrgm:Version>"]) {
    const at = xmp.indexOf(key);
    if (at < 0) continue;
    const from = at + key.length;
    const end = xmp.slice(from, from + maxVersionChars + 1).search(/["'<]/);
    if (end > 0) return xmp.slice(from, from + end);
  }
  return undefined;
}

/** The gain-map announcement of a JPEG's primary picture, or undefined when there is none. */
export function jpegGainMap(b: Uint8Array): GainMapFacts | undefined {
  if (b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  const signalledBy: GainMapFacts["signalledBy"] = [];
  let version: string | undefined;
  for (let o = 2; o + 4 <= b.length;) {
    if (b[o] !== 0xff) break;
    const marker = b[o + 1]!;
    if (marker === 0xff) { o += 1; continue; }
    if (marker === 0xda || marker === 0xd9) break;
    const length = (b[o + 2]! << 8) | b[o + 3]!;
    if (length < 2) break;
    const start = o + 4;
    const end = Math.min(o + 2 + length, b.length);
    if (marker === 0xe1 && latin1(b, start, Math.min(start + xmpId.length, end)) === xmpId) {
      const xmp = latin1(b, start + xmpId.length, end);
      if (xmp.includes(hdrgmNamespace)) {
        version = versionIn(xmp);
        if (version !== undefined && !signalledBy.includes("xmp-hdrgm")) signalledBy.push("xmp-hdrgm");
      }
    }
    if (marker === 0xe2 && latin1(b, start, Math.min(start + isoUrn.length, end)) === isoUrn && !signalledBy.includes("iso-21496-1")) {
      signalledBy.push("iso-21496-1");
    }
    o += 2 + length;
  }
  if (signalledBy.length === 0) return undefined;
  return version !== undefined ? { signalledBy, version } : { signalledBy };
}
