/**
 * Apple icon sets (ICNS): a list of typed elements, the large ones (ic07-ic14, icp4-icp6) PNG or JPEG 2000
 * files as they are. The thumbnail is made from the largest PNG member (sharp reads it in place); the older
 * packed-bitmap members are not decoded. The walk visits at most `maxIcnsElements` headers.
 */
const maxIcnsElements = 256;
const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export const isIcns = (head: Buffer) => head.length >= 8 && head.subarray(0, 4).toString("latin1") === "icns";

/** The byte range of the largest PNG member, or undefined when the set holds none. */
export function largestIcnsPng(file: Buffer): { offset: number; end: number } | undefined {
  if (!isIcns(file)) return undefined;
  const end = Math.min(file.length, file.readUInt32BE(4));
  let best: { offset: number; end: number } | undefined;
  for (let o = 8, n = 0; o + 8 <= end && n < maxIcnsElements; n++) {
    const length = file.readUInt32BE(o + 4);
    if (length < 8) break;
    const data = o + 8;
    const stop = Math.min(o + length, end);
    if (file.subarray(data, data + 8).equals(pngSignature) && (!best || stop - data > best.end - best.offset)) best = { offset: data, end: stop };
    o += length;
  }
  return best;
}
