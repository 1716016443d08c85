/**
 * An fMP4 initialization segment (ftyp + a moov with mvex, and nothing after the moov): ffprobe reads its
 * tracks and codecs, but it holds no sample, so no frame can be decoded; the previews end with that reason
 * instead of a decode failure. Reads only the box headers of the head (at most `maxTopLevelBoxes`).
 */
const maxTopLevelBoxes = 16;

export function isInitSegment(head: Buffer, fileSize: number): boolean {
  if (head.length < 16 || head.toString("latin1", 4, 8) !== "ftyp") return false;
  let pos = 0;
  for (let i = 0; i < maxTopLevelBoxes && pos + 8 <= head.length; i++) {
    const size = head.readUInt32BE(pos);
    const type = head.toString("latin1", pos + 4, pos + 8);
    if (size < 8 || type === "mdat" || type === "moof") return false;
    if (type === "moov") {
      if (pos + size !== fileSize || pos + size > head.length) return false;
      // mvex sits among the moov's direct children, after mvhd and the traks.
      for (let o = pos + 8; o + 8 <= pos + size;) {
        const child = head.readUInt32BE(o);
        if (head.toString("latin1", o + 4, o + 8) === "mvex") return true;
        if (child < 8) return false;
        o += child;
      }
      return false;
    }
    pos += size;
  }
  return false;
}
