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

/**
 * A WebM/Matroska media segment as DASH packagers cut them: the file is one Cluster (ID 1F 43 B6 75, a size,
 * then its Timecode element E7), with no EBML header and no Tracks: it decodes only after its initialization
 * segment. Fixed-offset reads.
 */
export function isWebmMediaSegment(head: Uint8Array): boolean {
  if (head.length < 8 || head[0] !== 0x1f || head[1] !== 0x43 || head[2] !== 0xb6 || head[3] !== 0x75) return false;
  const first = head[4]!;
  if (first === 0) return false;
  const sizeLength = Math.clz32(first) - 23; // 1 for 0x80-0xFF, 2 for 0x40-0x7F, ... 8 for 0x01
  return head[4 + sizeLength] === 0xe7;
}
