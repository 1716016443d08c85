import { ascii, u32be } from "../bytes/read-bytes.ts";

/**
 * A fragmented-MP4 media segment (ISO/IEC 23009-1 6.3.4, CMAF): top-level boxes that open with styp, sidx,
 * prft or emsg and reach a moof before any moov. Such a file holds samples but not the tracks that describe
 * them: it plays only after its initialization segment. Reads at most `maxBoxes` box headers of the head.
 */
const maxBoxes = 16;
/** Boxes a media segment may carry before its first moof. */
const beforeMoof = new Set(["styp", "sidx", "ssix", "prft", "emsg", "free", "skip"]);

/** The MIME type registered for ISO BMFF media segments (RFC 4337 family; used by DASH and CMAF). */
export const mediaSegmentMime = "video/iso.segment";

export function isMediaSegment(head: Uint8Array): boolean {
  for (let o = 0, n = 0; n < maxBoxes && o + 8 <= head.length; n++) {
    const size = u32be(head, o) ?? 0;
    const type = ascii(head, o + 4, 4);
    if (type === "moof") return size >= 8;
    if (!beforeMoof.has(type) || size < 8) return false;
    o += size;
  }
  return false;
}
